#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `pthread-mutex`: a plain POSIX mutex per resource (`PTHREAD_MUTEX_NORMAL`).
///
/// What C, Objective-C and Swift code gets from `pthread_mutex_lock` directly, and
/// what most lock wrappers (NIO's `NIOLock`, many hand-rolled `Lock` classes)
/// are built on. Not reentrant: locking it again on the thread that holds it
/// deadlocks. No fairness guarantee (glibc lets a running thread barge in ahead of
/// a woken waiter). Each mutex sits on its own cache line so two resources never
/// share one.
package final class PthreadMutexStrategy: BlockingStrategy, @unchecked Sendable {
    // @unchecked: the mutexes live in raw memory that every worker touches; that
    // is what a mutex is for. The pointer itself never changes after init.
    public static let descriptor = StrategyDescriptor(
        name: "pthread-mutex",
        summary: "POSIX pthread_mutex_t (normal type): the primitive under most Swift lock wrappers",
        reentrant: false, sharedReads: false
    )

    private let locks: CacheLineArray<pthread_mutex_t>

    public init(setup: StrategySetup) throws {
        locks = CacheLineArray(count: setup.resources)
        for i in 0..<setup.resources {
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_NORMAL))
            pthread_mutex_init(locks[i], &attributes)
            pthread_mutexattr_destroy(&attributes)
        }
    }

    deinit {
        for i in 0..<locks.count { pthread_mutex_destroy(locks[i]) }
        locks.deallocate()
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        let lock = locks[resource]
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}

extension PthreadMutexStrategy: HoldingStrategy {
    public func acquire(_ resource: Int) { pthread_mutex_lock(locks[resource]) }
    public func release(_ resource: Int) { pthread_mutex_unlock(locks[resource]) }
}
