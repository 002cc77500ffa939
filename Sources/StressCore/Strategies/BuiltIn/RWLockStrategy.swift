#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `rwlock`: a POSIX reader-writer lock (`pthread_rwlock_t`) per resource:
/// reads take it shared, writes exclusive.
///
/// The primitive under most hand-written reader-writer wrappers. Readers
/// overlap; a writer runs alone. With its default attributes glibc prefers
/// readers: while readers keep overlapping a waiting writer can starve, which a
/// read-heavy mix shows as a long write tail. Not reentrant: glibc detects a
/// thread asking for the write lock it already holds (or for the read lock
/// while holding the write lock) and returns `EDEADLK`; code that ignored the
/// result would then unlock twice, so this strategy traps with that error
/// instead (recorded as `crashed`, with the message). Each lock sits on its own
/// cache line.
package final class RWLockStrategy: BlockingStrategy, @unchecked Sendable {
    // @unchecked: the locks live in raw memory that every worker touches; that
    // is what a lock is for. The pointer never changes after init.
    public static let descriptor = StrategyDescriptor(
        name: "rwlock",
        summary: "POSIX pthread_rwlock_t: readers share, writers exclusive (glibc default: prefers readers)",
        reentrant: false, reentry: .traps(message: "Resource deadlock avoided"), sharedReads: true
    )

    private let locks: CacheLineArray<pthread_rwlock_t>

    public init(setup: StrategySetup) throws {
        locks = CacheLineArray(count: setup.resources)
        for i in 0..<setup.resources { pthread_rwlock_init(locks[i], nil) }
    }

    deinit {
        for i in 0..<locks.count { pthread_rwlock_destroy(locks[i]) }
        locks.deallocate()
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) {
        locked(resource, pthread_rwlock_rdlock, "pthread_rwlock_rdlock", body)
    }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        locked(resource, pthread_rwlock_wrlock, "pthread_rwlock_wrlock", body)
    }

    /// Runs `body` with the lock taken by `acquire` (shared or exclusive).
    @inline(__always)
    private func locked(
        _ resource: Int, _ acquire: (UnsafeMutablePointer<pthread_rwlock_t>) -> Int32, _ call: StaticString, _ body: () -> Void
    ) {
        let lock = locks[resource]
        let rc = acquire(lock)
        if rc != 0 { Self.fail(rc, call) }
        defer { pthread_rwlock_unlock(lock) }
        body()
    }

    @inline(never)
    private static func fail(_ rc: Int32, _ call: StaticString) -> Never {
        let reason = rc == EDEADLK ? " (this thread already holds the lock: pthread rwlocks are not reentrant)" : ""
        fatalError("\(call) failed: \(String(cString: strerror(rc)))\(reason)")
    }
}

extension RWLockStrategy: HoldingStrategy {
    /// The exclusive (writer) side.
    public func acquire(_ resource: Int) {
        let rc = pthread_rwlock_wrlock(locks[resource])
        if rc != 0 { Self.fail(rc, "pthread_rwlock_wrlock") }
    }

    public func release(_ resource: Int) { pthread_rwlock_unlock(locks[resource]) }
}
