import CStressSupport
import Synchronization

/// `mutex`: the Swift standard library's `Synchronization.Mutex` (SE-0433).
///
/// The lock Swift 6 code is meant to use: a futex-based lock on Linux
/// (`os_unfair_lock` on Apple platforms), noncopyable, with the protected value
/// inside. Not reentrant (re-locking on the owning thread deadlocks or traps).
/// No fairness guarantee.
package final class MutexStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "mutex",
        summary: "Swift Synchronization.Mutex (SE-0433): the standard library's lock",
        reentrant: false, reentry: .traps(message: "Recursive call to lock Mutex"), sharedReads: false
    )

    /// One mutex per resource, each on its own cache line so none share one,
    /// at an address that never changes (a `Mutex` must not move while in use).
    ///
    /// Raw memory rather than an object per mutex: a lock reached through an
    /// array of objects is a load of the array, a bounds check and a load of
    /// the object on every operation, which the compiler cannot hoist out of a
    /// loop (the lock's atomic instructions may, for all it knows, change the
    /// array); the address of a mutex in raw memory is computed once, before
    /// the loop, as an application's lock in a stored property is.
    private let locks: CacheLineArray<Mutex<Void>>

    public init(setup: StrategySetup) throws {
        locks = CacheLineArray(count: setup.resources)
        for i in 0..<setup.resources { locks[i].initialize(to: Mutex(())) }
    }

    deinit {
        for i in 0..<locks.count { locks[i].deinitialize(count: 1) }
        locks.deallocate()
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        let lock = locks[resource]
        lock.pointee.withLock { _ in
            // ThreadSanitizer does not see the lock handed over in the kernel
            // (a contended Mutex waits on a futex, and the standard library
            // that takes it is not instrumented): told here, or it reports
            // the critical sections as racing. One untaken branch otherwise.
            stress_tsan_acquire(lock)
            body()
            stress_tsan_release(lock)
        }
    }
}
