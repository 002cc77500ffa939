#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Dispatch
import Synchronization

/// OS threads kept parked between short runs, for searches that run many
/// (shrinking's candidates, exploration's schedules): each run starts its
/// workers, an escape monitor and a thread of its own, and creating those
/// threads, not running the run, was each candidate's largest cost.
///
/// A thread that ``OSThread/spawn(_:)`` starts from a thread of the pool
/// (the run's thread, a worker) is taken from the pool too, so a whole run
/// reuses threads with no change to the code that starts them. A thread
/// whose body never returns (a deadlocked run's parked worker) is simply
/// never given back. Not under ThreadSanitizer, whose reports name each
/// thread by where it was created.
package final class ThreadPool: Sendable {
    private let shared = Shared()

    package init() {}

    deinit { shared.close() }

    /// Runs `body` on a parked thread of the pool, or on a new one (which
    /// joins the pool when `body` returns). Nil if the OS refused a thread.
    package func spawn(_ body: @escaping @Sendable () -> Void) -> OSThread? {
        if stress_tsan_active() != 0 { return OSThread.spawn(body) }
        return shared.start(body)
    }

    /// The pool of the calling thread, when it is one of a pool's threads.
    static var current: Shared? {
        guard let raw = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<Shared>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Each pool thread's pool (the thread holds it strongly while it lives).
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key, nil)
        precondition(rc == 0, "pthread_key_create failed: \(rc)")
        return key
    }()

    /// The threads, parked or running: shared by the pool and its threads,
    /// which outlive the pool while they run.
    final class Shared: Sendable {
        /// At most this many threads wait parked; more end when done.
        static let idleLimit = 64
        private let idle = Mutex<(threads: [Parked], closed: Bool)>(([], false))

        /// Hands `body` to a parked thread, or starts one.
        func start(_ body: @escaping @Sendable () -> Void) -> OSThread? {
            let job = Job(body)
            let parked = idle.withLockSeen { $0.closed ? nil : $0.threads.popLast() }
            if let parked {
                parked.give(job)
                return OSThread(joining: job.done)
            }
            let thread = Parked()
            thread.give(job)
            guard OSThread.spawnDetached({ [self] in serve(thread) }) else { return nil }
            return OSThread(joining: job.done)
        }

        /// A pool thread's life: runs each job it is given, then parks in
        /// the pool until the next one (or ends, once the pool closed).
        private func serve(_ me: Parked) {
            pthread_setspecific(ThreadPool.currentKey, Unmanaged.passUnretained(self).toOpaque())
            while let job = me.take() {
                job.body()
                // Back in the pool before saying it is done, so that the
                // joiner's next start finds this thread parked.
                let kept = idle.withLockSeen { state -> Bool in
                    guard !state.closed, state.threads.count < Self.idleLimit else { return false }
                    state.threads.append(me)
                    return true
                }
                job.done.signal()
                if !kept { break }
            }
            pthread_setspecific(ThreadPool.currentKey, nil)
        }

        /// Ends every parked thread; those running end when their job does.
        func close() {
            let parked = idle.withLockSeen { state -> [Parked] in
                state.closed = true
                defer { state.threads = [] }
                return state.threads
            }
            for thread in parked { thread.give(nil) }
        }
    }

    /// One body to run, and the signal its end gives the joiner.
    final class Job: Sendable {
        let body: @Sendable () -> Void
        let done = DispatchSemaphore(value: 0)
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// A pool thread's mailbox: the next job (nil: end), and its wake-up.
    final class Parked: Sendable {
        private let next = Mutex<Job??>(nil)
        private let arrived = DispatchSemaphore(value: 0)

        func give(_ job: Job?) {
            next.withLockSeen { $0 = .some(job) }
            arrived.signal()
        }

        /// Waits for the next job; nil when the thread is to end.
        func take() -> Job? {
            arrived.wait()
            return next.withLockSeen { slot in
                defer { slot = nil }
                return slot ?? nil
            }
        }
    }
}
