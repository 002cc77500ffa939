#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A one-shot meeting point between `parties` worker threads and the thread
/// that coordinates them: workers ``arriveAndWait()``; the coordinator waits
/// until all have arrived (``waitForAll()``), does what must happen while every
/// worker is held (reading counters, calibrating), then ``release()``s them
/// together. Blocks on condition variables (not a spin) so that more workers
/// than cores do not starve the last arrival.
final class ThreadGate: Sendable {
    private let parties: Int
    private let arrived = Mutex(0)
    private let allArrived = ConditionSignal()
    private let released = ConditionSignal()

    init(parties: Int) { self.parties = parties }

    /// Called by a worker: blocks until ``release()``.
    func arriveAndWait() {
        let isLast = arrived.withLock { count -> Bool in
            count += 1
            return count == parties
        }
        if isLast { allArrived.open() }
        released.waitUntilOpen()
    }

    /// Called by the coordinator: blocks until every worker has arrived.
    func waitForAll() { allArrived.waitUntilOpen() }

    /// Whether every worker has arrived (without waiting).
    var hasAllArrived: Bool { arrived.withLock { $0 == parties } }

    /// Lets every worker go (and any that arrives later pass straight through).
    func release() { released.open() }
}

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

/// The async counterpart for task workers: tasks `await arrive()`; the
/// coordinating thread waits until all have arrived, then releases them together.
final class TaskGate: Sendable {
    private struct Waiting {
        var continuations: [CheckedContinuation<Void, Never>] = []
        var released = false
    }

    private let parties: Int
    private let state = Mutex(Waiting())
    private let allArrived = ConditionSignal()

    init(parties: Int) { self.parties = parties }

    /// Suspends the calling task until ``release()``.
    func arrive() async {
        await withCheckedContinuation { continuation in
            let (resumeNow, everyone) = state.withLock { s -> (Bool, Bool) in
                if s.released { return (true, false) }
                s.continuations.append(continuation)
                return (false, s.continuations.count == parties)
            }
            if resumeNow { continuation.resume() }
            if everyone { allArrived.open() }
        }
    }

    /// Blocks the calling thread until every task has arrived.
    func waitForAll() { allArrived.waitUntilOpen() }

    /// Whether every task has arrived (without waiting).
    var hasAllArrived: Bool { state.withLock { $0.released || $0.continuations.count == parties } }

    /// Lets every waiting task go.
    func release() {
        let waiting = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.released = true
            defer { s.continuations = [] }
            return s.continuations
        }
        for c in waiting { c.resume() }
    }
}
