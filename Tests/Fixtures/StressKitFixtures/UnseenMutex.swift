#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with no wrapper the harness sees: what a team's own code
/// that takes a plain `NSLock` or `pthread_mutex_t` looks like to the
/// watchdog when the plan does not interpose them. The default mutex type:
/// taken twice by one thread, it blocks for good.
public final class UnseenMutex: @unchecked Sendable {
    // @unchecked: the mutex lives in memory of its own and is only used
    // through pthread calls, which is the point: a lock as code writes it.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A mutex of the default type, not locked.
    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// `pthread_mutex_lock`: blocks for good if this thread holds it.
    public func lock() { pthread_mutex_lock(mutex) }
    /// `pthread_mutex_unlock`.
    public func unlock() { pthread_mutex_unlock(mutex) }
}
