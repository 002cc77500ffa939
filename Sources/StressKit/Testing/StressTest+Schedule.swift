import StressCore
import StressRunner

extension StressTest {
    /// Who picks the next worker: `.free` (the operating system, the default)
    /// or `.controlled` (the harness runs one worker at a time and the fuzz
    /// policy picks every switch from the seed, so a failure replays exactly
    /// and a deadlock is reported the moment it happens). Controlled runs
    /// thread workers; for async code, the deterministic executor
    /// (``executor(_:)``) is the controlled schedule.
    ///
    /// - Parameter mode: Free-running or controlled.
    /// - Returns: This test with the schedule set.
    public func schedule(_ mode: ScheduleMode) -> StressTest { with { $0.scheduleMode = mode } }

    /// Runs each trial with the pthread interposer preloaded (the plan's
    /// `interpose: true`): the code under test's own `NSLock`,
    /// `NSRecursiveLock`, `NSCondition` and pthread mutex, condition and
    /// read-write lock calls then publish what each thread holds and waits
    /// for, are fuzz points, and under ``schedule(_:)`` `.controlled` are
    /// scheduling points, without a change to that code. Linux only; the
    /// library is preloaded into a trial's process, so the test must be
    /// isolated too (`.isolated()` from `StressKitTesting`), and running an
    /// in-process test that asks for it throws a ``StressTestError`` saying so.
    ///
    /// - Parameter on: Whether to preload the interposer (default `true`).
    /// - Returns: This test with the interposer asked for.
    public func interpose(_ on: Bool = true) -> StressTest { with { $0.interposes = on } }

    /// The most scheduling decisions a controlled trial makes before it ends
    /// (20,000 unless set): its length, the same on every machine.
    ///
    /// - Parameter count: The decision budget of each controlled trial.
    /// - Returns: This test with the budget set.
    public func maxDecisions(_ count: Int) -> StressTest { with { $0.maxDecisionCount = count } }

    /// Runs each trial as a bounded exhaustive exploration: every schedule
    /// with at most `preemptions` preemptions (switches away from a worker
    /// that could have gone on), each from a fresh start, until one fails
    /// or all have passed. The test fails with the first failing schedule's
    /// interleaving; passing, its report says how many schedules were
    /// explored and whether that was all of them. It makes the test
    /// controlled (``schedule(_:)``), so it runs thread workers only.
    ///
    /// - Parameters:
    ///   - preemptions: The bound, 0 to 8 (each one more multiplies the
    ///     schedules; the shipped bugs need at most 2).
    ///   - operations: A workload's operations per worker in every schedule
    ///     (2 unless given; a scenario runs one round and ignores it).
    ///   - seconds: The time budget, after which the search stops and says
    ///     how much of the space it covered (60 unless given).
    ///   - pruning: Skip schedules equivalent to one already run (sleep
    ///     sets); on unless turned off.
    /// - Returns: This test exploring.
    public func explore(preemptions: Int, operations: Int? = nil, seconds: Int? = nil, pruning: Bool = true) -> StressTest {
        with {
            var keys = [("preemptions", String(preemptions))]
            if let operations { keys.append(("operations", String(operations))) }
            if let seconds { keys.append(("seconds", String(seconds))) }
            if !pruning { keys.append(("pruning", "false")) }
            $0.exploreKeys = keys.map { (key: $0.0, value: $0.1) }
        }
    }

    /// Shrinks a failed controlled trial's schedule for at most `seconds`
    /// (5 unless set): its failure message then draws the smallest
    /// interleaving found that fails the same way.
    ///
    /// - Parameter seconds: The time bound, 1 to 3600.
    /// - Returns: This test with the bound set.
    public func shrink(seconds: Int) -> StressTest { with { $0.shrinkSeconds = seconds } }

    /// Turns shrinking of a failed controlled trial's schedule on (for 5 s,
    /// the default) or off (the failure message draws the schedule as it
    /// failed).
    ///
    /// - Parameter enabled: Whether to shrink.
    /// - Returns: This test with shrinking on or off.
    public func shrink(_ enabled: Bool) -> StressTest { with { $0.shrinkSeconds = enabled ? nil : 0 } }

    /// Hunts under control, for up to `seconds`, for each trial that fails
    /// free-running: controlled trials of the same cell (the failing seed,
    /// then seeds derived from it, under `yield`'s random walk) until one
    /// fails the same way. The failure message then draws that controlled
    /// trial's interleaving, shrunk, under the free failure, or says none
    /// was found in the budget. A free failure has no trace of its own: the
    /// operating system chose its switches. Only a failure a controlled
    /// schedule can run (a violation, deadlock or hang of thread workers)
    /// is hunted; the test's outcome stays what the free trial's was.
    ///
    /// - Parameter seconds: The budget for each failure, 1 to 3600; 0 for no hunt (the default).
    /// - Returns: This test with the hunt set.
    public func hunt(seconds: Int) -> StressTest {
        with { test in
            guard (0...HuntRecord.longestSeconds).contains(seconds) else {
                test.problems.append(.init(setting: "hunt", "hunt(seconds:) takes 0 to \(HuntRecord.longestSeconds) seconds "
                                           + "(0: no hunt), not \(seconds)"))
                return
            }
            test.huntSeconds = seconds
        }
    }
}
