#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A reusable-once meeting point for OS threads: everyone waits until `parties`
/// have arrived, then all go at once. Blocks on a condition variable (not a spin)
/// so that more workers than cores do not starve the last arrival.
final class ThreadBarrier: Sendable {
    private let parties: Int
    private let arrived = Mutex(0)
    private let condition = ConditionSignal()

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        let isLast = arrived.withLock { count -> Bool in
            count += 1
            return count == parties
        }
        if isLast { condition.open() } else { condition.waitUntilOpen() }
    }
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
        pthread_cond_init(cond, nil)
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
