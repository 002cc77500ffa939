#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Foundation
import Synchronization

/// Names of the primitives of a trial's code under test, for stall reports.
///
/// - A harness-aware primitive given a name (`StressLock(name: "tally")`)
///   registers it when it is made and drops it when it goes away: "the lock
///   'tally'". One made without a name registers its type and the place in
///   the source that made it instead: "the StressLock made at
///   Ledger/Ledger.swift:12", "the 2nd StressLock made at ..." for another
///   made there while the first lives.
/// - A Foundation lock or a pthread lock of your own, seen through the
///   interposer (`interpose: true`), gets the name you give it with
///   ``name(_:_:)`` or ``name(mutex:_:)``.
/// - An interposed lock without a name is called by what it is and where
///   the code under test first took it: "the mutex first taken at
///   post/post", "the 2nd mutex first taken at settle/settle", "the
///   condition first waited on at audit/audit".
/// - Anything else, by its kind and address.
public enum PrimitiveNames {
    /// A name, and the object that owns the primitive when the name was
    /// given through it: once that object is gone, its primitive's address
    /// may be another's, and the name no longer holds.
    private struct Entry: @unchecked Sendable {
        // @unchecked: `owner` is a weak reference, only read and written
        // under the `names` mutex.
        var name: Label
        weak var owner: AnyObject?
        var owned: Bool
    }

    /// What an entry calls its primitive: a name given, or where an unnamed
    /// one was made (kept as static strings, so that making one allocates
    /// no text; the words are put together only when a report asks).
    private enum Label {
        case given(String)
        case made(MadeAt)
    }

    private static let names = Mutex<[UInt64: Entry]>([:])
    /// The names of primitives gone since, until their address names
    /// another: a controlled trial's trace is put into words after its run,
    /// when a scenario round's locks are long gone. At most
    /// ``retiredLimit``; past it the oldest go (all at once).
    private static let retired = Mutex<[UInt64: Label]>([:])
    private static let retiredLimit = 4_096
    /// Orders the unnamed primitives made at one place, for their ordinals.
    private static let madeCount = Atomic<UInt64>(0)

    /// Names the primitive at `key` (its address) `name`: "the queue 'jobs'".
    package static func register(_ key: UInt64, _ name: String) {
        retire(nil, key)
        names.withLockSeen { $0[key] = Entry(name: .given(name), owner: nil, owned: false) }
    }

    /// Registers the unnamed harness-aware primitive at `key` as what it is
    /// (`noun`: "StressLock", "lock of the StressCondition") and where the
    /// code under test made it (`#fileID`, `#line` of its initializer's
    /// caller), never by its address, which changes from run to run.
    static func register(_ key: UInt64, madeAs noun: StaticString, file: StaticString, line: UInt) {
        let made = MadeAt(noun: noun, file: file, line: line, sequence: madeCount.add(1, ordering: .relaxed).newValue)
        retire(nil, key)
        names.withLockSeen { $0[key] = Entry(name: .made(made), owner: nil, owned: false) }
    }

    /// Forgets the primitive at `key`: a harness-aware primitive that went
    /// away keeps its name as a retired one (`retiring`), for a trace put
    /// into words later; a name forgotten on purpose (``forget(_:)``) goes.
    package static func unregister(_ key: UInt64, retiring: Bool = true) {
        let gone = names.withLockSeen { $0.removeValue(forKey: key) }
        if let gone, retiring { retire(gone.name, key) } else { retire(nil, key) }
    }

    /// Keeps `label` as `key`'s retired name (nil: forgets it).
    private static func retire(_ label: Label?, _ key: UInt64) {
        retired.withLockSeen { retired in
            guard let label else {
                retired.removeValue(forKey: key)
                return
            }
            if retired.count >= retiredLimit { retired.removeAll(keepingCapacity: true) }
            retired[key] = label
        }
    }

    /// Names a Foundation lock of your own (`NSLock`, `NSRecursiveLock`,
    /// `NSCondition`, `NSConditionLock`) for the stall reports of trials that
    /// run with `interpose: true`: "the lock 'ledger.cash'", "the recursive
    /// lock 'ledger.cash'", "the condition 'ledger.sales'" (and its lock, "the
    /// lock of condition 'ledger.sales'"). Call it once, where the lock is
    /// made (in a test build, say); the name goes away with the lock.
    ///
    /// Returns whether the lock's pthread objects were found: false on a
    /// platform whose Foundation does not build its locks on pthread
    /// mutexes the interposer sees (Darwin), where the call does nothing.
    ///
    /// - Parameters:
    ///   - lock: The lock or condition to name.
    ///   - name: Its name in reports, without quotes.
    /// - Returns: Whether the lock's pthread objects were found and named.
    @discardableResult
    public static func name(_ lock: NSLocking & AnyObject, _ name: String) -> Bool {
        let found = pthreadObjects(of: lock)
        guard !found.isEmpty else { return false }
        let noun: String
        switch lock {
        case is NSRecursiveLock: noun = "the recursive lock"
        case is NSCondition, is NSConditionLock: noun = "the lock of condition"
        default: noun = "the lock"
        }
        names.withLockSeen { names in
            for (key, isCondition) in found {
                names[key] = Entry(name: .given(isCondition ? "the condition '\(name)'" : "\(noun) '\(name)'"), owner: lock, owned: true)
            }
        }
        return true
    }

    /// Names a pthread mutex of your own for stall reports ("the mutex
    /// 'name'"), as ``name(_:_:)`` names a Foundation lock. Call
    /// ``forget(_:)`` before you destroy it: a later mutex at the same
    /// address would otherwise get its name.
    ///
    /// - Parameters:
    ///   - mutex: The mutex to name.
    ///   - name: Its name in reports, without quotes.
    public static func name(mutex: UnsafeMutablePointer<pthread_mutex_t>, _ name: String) {
        register(key(mutex), "the mutex '\(name)'")
    }

    /// Names a pthread read-write lock of your own ("the read-write lock 'name'").
    ///
    /// - Parameters:
    ///   - rwlock: The read-write lock to name.
    ///   - name: Its name in reports, without quotes.
    public static func name(rwlock: UnsafeMutablePointer<pthread_rwlock_t>, _ name: String) {
        register(key(rwlock), "the read-write lock '\(name)'")
    }

    /// Names a pthread condition variable of your own ("the condition 'name'").
    ///
    /// - Parameters:
    ///   - condition: The condition variable to name.
    ///   - name: Its name in reports, without quotes.
    public static func name(condition: UnsafeMutablePointer<pthread_cond_t>, _ name: String) {
        register(key(condition), "the condition '\(name)'")
    }

    /// Forgets the name of the pthread object at `pointer` (a mutex,
    /// read-write lock or condition named above).
    ///
    /// - Parameter pointer: The address of the mutex, read-write lock or condition.
    public static func forget(_ pointer: UnsafeMutableRawPointer) {
        unregister(UInt64(UInt(bitPattern: pointer)), retiring: false)
    }

    /// What to call the primitive at `key` in a report.
    package static func describe(_ key: UInt64) -> String {
        if key == WaitKey.mainQueue { return "the main queue" }
        if let r = WaitKey.resource(of: key) { return "resource \(r)" }
        if let r = WaitKey.signalledResource(of: key) { return "a change to resource \(r) (a waitUntil step)" }
        if let name = registered(key) { return name }
        if let first = FirstTaken.lookup(key) { return first.description(labels: RunningTrial.board?.labels ?? []) }
        if let label = retired.withLockSeen({ $0[key] }) {
            switch label {
            case .given(let name): return name
            case .made(let made): return made.description(rank: 1)
            }
        }
        return "the lock at 0x" + String(key, radix: 16)
    }

    /// What to call the condition at `key`, which something waits to be
    /// signalled on: as ``describe(_:)``, but one nobody named is a condition.
    static func describeCondition(_ key: UInt64) -> String {
        let name = describe(key)
        return name.hasPrefix("the lock at 0x") ? "the condition at 0x" + String(key, radix: 16) : name
    }

    /// The name registered for `key`, unless the object it was given
    /// through has gone (then the entry goes too).
    private static func registered(_ key: UInt64) -> String? {
        names.withLockSeen { names in
            guard let entry = names[key] else { return nil }
            if entry.owned && entry.owner == nil {
                names.removeValue(forKey: key)
                return nil
            }
            switch entry.name {
            case .given(let name):
                return name
            case .made(let made):
                // Its ordinal among the live primitives of its kind made at
                // the same place, as an interposed lock's among those first
                // taken at the same site.
                let rank = 1 + names.values.count(where: { other in
                    guard case .made(let earlier) = other.name else { return false }
                    return earlier.sequence < made.sequence && earlier.isSamePlaceAndKind(as: made)
                })
                return made.description(rank: rank)
            }
        }
    }

    private static func key<T>(_ pointer: UnsafeMutablePointer<T>) -> UInt64 { UInt64(UInt(bitPattern: pointer)) }

    /// The keys of the pthread mutexes and conditions a Foundation lock is
    /// built on (swift-corelibs-foundation keeps them in stored properties,
    /// which reflection reads; an `NSConditionLock` keeps an `NSCondition`),
    /// each with whether it is a condition.
    static func pthreadObjects(of object: AnyObject) -> [(key: UInt64, isCondition: Bool)] {
        var found: [(key: UInt64, isCondition: Bool)] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let m = mirror {
            for child in m.children {
                if let mutex = child.value as? UnsafeMutablePointer<pthread_mutex_t> {
                    found.append((key(mutex), false))
                } else if let condition = child.value as? UnsafeMutablePointer<pthread_cond_t> {
                    found.append((key(condition), true))
                } else if let inner = child.value as? NSCondition {
                    found += pthreadObjects(of: inner)
                }
            }
            mirror = m.superclassMirror
        }
        return found
    }
}
