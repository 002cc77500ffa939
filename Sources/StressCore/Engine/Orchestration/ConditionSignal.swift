#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A one-shot gate a blocking thread opens: waiters sleep until it opens.
final class ConditionSignal: @unchecked Sendable {
    // @unchecked: the pthread mutex and condition live in raw memory shared by
    // every waiter; all access goes through them, which is their purpose.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var isOpen = false

    init() {
        pthread_mutex_init(mutex, nil)
        // Timed waits measure against the monotonic clock, which no one can set.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    func open() {
        pthread_mutex_lock(mutex)
        isOpen = true
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    func waitUntilOpen() {
        pthread_mutex_lock(mutex)
        while !isOpen { pthread_cond_wait(cond, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Waits until the gate opens or `nanoseconds` pass; returns whether it is open.
    func wait(upTo nanoseconds: UInt64) -> Bool {
        let deadline = MonotonicClock.now() &+ nanoseconds
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_mutex_lock(mutex)
        while !isOpen && pthread_cond_timedwait(cond, mutex, &time) == 0 {}
        let open = isOpen
        pthread_mutex_unlock(mutex)
        return open
    }
}
