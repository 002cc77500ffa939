@_spi(ExperimentalScheduling) import _Concurrency

/// The task executor one worker task prefers (SE-0417): it hands every job to
/// the trial's ``JobScheduler`` tagged with the worker, so the harness knows
/// whose job it is choosing. The worker's child tasks (`async let`, task
/// groups) inherit the preference, and the default actors it calls run their
/// jobs here too.
///
/// What escapes it: actors with a custom executor (their jobs run there), the
/// main actor, `Task.detached` and `Task {}` made inside a step (they start
/// without the preference), and callbacks resumed from threads of their own
/// (a `DispatchQueue`, a timer) until they hop back into a worker's task.
///
/// It also schedules `Task.sleep` (`SchedulingExecutor`, SPI in Swift 6.3):
/// the scheduler holds the sleeping job and, when deterministic, runs it on a
/// virtual clock.
final class WorkerExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // @unchecked: both fields are immutable; the scheduler synchronizes itself.
    // The scheduler and its facades refer to each other and are never freed:
    // a task abandoned with its trial (a continuation never resumed) still
    // names this executor, and Swift does not keep a task's executor alive.
    let scheduler: JobScheduler
    let worker: Int

    init(scheduler: JobScheduler, worker: Int) {
        self.scheduler = scheduler
        self.worker = worker
    }

    func enqueue(_ job: consuming ExecutorJob) {
        scheduler.submit(UnownedJob(job), worker: worker)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        let delay = clock.now.duration(to: instant)
        scheduler.submit(UnownedJob(job), worker: worker, afterNs: Self.nanoseconds(delay))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        scheduler.submit(UnownedJob(job), worker: worker, afterNs: Self.nanoseconds(delay))
    }

    /// A clock's duration in nanoseconds: Swift's own clocks measure in
    /// `Duration`; another clock's sleep is taken as due at once.
    private static func nanoseconds<D>(_ duration: D) -> UInt64 {
        guard let d = duration as? Duration, d > .zero else { return 0 }
        let (seconds, attoseconds) = d.components
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
