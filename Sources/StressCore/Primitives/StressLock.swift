#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// A lock in the shape of Foundation's `NSLock` (`lock()`, `unlock()`,
/// `try()`, `withLock`) that a trial can see. In a trial's child process a
/// plain `NSLock` is seen too, when the plan says `interpose: true` (its
/// pthread calls are interposed); this wrapper is for where that cannot
/// reach: in-process runs, and platforms without interposition. Outside a
/// trial it is a pthread mutex plus one thread-local check.
public final class StressLock: @unchecked Sendable {
    // @unchecked: the mutex lives in memory of its own, and every access is
    // through it, which is its purpose.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A lock, optionally named for stall reports ("the lock 'tally'").
    /// Unnamed, a report calls it by its type and where it was made ("the
    /// StressLock made at Ledger/Ledger.swift:12"): `file` and `line` are
    /// the caller's, filled in by the compiler, never passed by hand.
    ///
    /// - Parameters:
    ///   - name: How stall reports name it ("the lock 'name'"); nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public convenience init(name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        self.init(unregistered: ())
        if let name {
            PrimitiveNames.register(Participation.key(self), "the lock '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(self), madeAs: "StressLock", file: file, line: line)
        }
    }

    /// A lock its owner names (a ``StressCondition``'s).
    init(unregistered: Void) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        PrimitiveNames.unregister(Participation.key(self))
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it (`NSLocking`'s shape; a call written
    /// `lock()` takes ``lock(file:line:)``, which knows its place).
    @inlinable @_disfavoredOverload
    public func lock() {
        guard stress_participant() != nil else {
            pthread_mutex_lock(mutex)
            return
        }
        lockInTrial(file: nil, line: 0)
    }

    /// Takes the lock, waiting for it.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    @inlinable
    public func lock(file: StaticString = #fileID, line: UInt = #line) {
        guard stress_participant() != nil else {
            pthread_mutex_lock(mutex)
            return
        }
        lockInTrial(file: file, line: line)
    }

    @usableFromInline
    func lockInTrial(file: StaticString?, line: UInt) {
        let key = Participation.key(self)
        Participation.fuzz(.beforeAcquire)
        if let file { Participation.locate(file: file, line: line) }
        stress_wait_begin(key, UInt64(STRESS_WAIT_LOCK))
        // Under control the model decides who waits; once it grants the
        // lock the real one is free, so this never blocks in the kernel.
        Participation.controlled?.acquire(key)
        pthread_mutex_lock(mutex)
        stress_wait_end()
        stress_hold(key)
        Participation.fuzz(.afterAcquire)
    }

    /// Takes the lock if it is free; returns whether it did.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    /// - Returns: Whether the lock was taken.
    public func `try`(file: StaticString = #fileID, line: UInt = #line) -> Bool {
        if let controlled = Participation.controlled {
            // A point, so that a loop of tries can be switched away from.
            Participation.fuzz(.beforeAcquire)
            Participation.locate(file: file, line: line)
            guard controlled.tryAcquire(Participation.key(self)) else { return false }
        }
        guard pthread_mutex_trylock(mutex) == 0 else { return false }
        if Participation.active { stress_hold(Participation.key(self)) }
        return true
    }

    /// Gives the lock back (`NSLocking`'s shape; a call written `unlock()`
    /// takes ``unlock(file:line:)``).
    @inlinable @_disfavoredOverload
    public func unlock() {
        guard stress_participant() != nil else {
            pthread_mutex_unlock(mutex)
            return
        }
        unlockInTrial(file: nil, line: 0)
    }

    /// Gives the lock back.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    @inlinable
    public func unlock(file: StaticString = #fileID, line: UInt = #line) {
        guard stress_participant() != nil else {
            pthread_mutex_unlock(mutex)
            return
        }
        unlockInTrial(file: file, line: line)
    }

    @usableFromInline
    func unlockInTrial(file: StaticString?, line: UInt) {
        Participation.fuzz(.beforeRelease)
        stress_unhold(Participation.key(self))
        pthread_mutex_unlock(mutex)
        if let file { Participation.locate(file: file, line: line) }
        Participation.controlled?.release(Participation.key(self))
        Participation.fuzz(.afterRelease)
    }

    /// Runs `body` holding the lock.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - body: The work to do holding the lock.
    /// - Returns: What `body` returns.
    @inlinable
    public func withLock<R>(file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> R) rethrows -> R {
        lock(file: file, line: line)
        defer { unlock(file: file, line: line) }
        return try body()
    }
}
