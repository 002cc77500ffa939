import StressCore

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

    /// The most scheduling decisions a controlled trial makes before it ends
    /// (20,000 unless set): its length, the same on every machine.
    ///
    /// - Parameter count: The decision budget of each controlled trial.
    /// - Returns: This test with the budget set.
    public func maxDecisions(_ count: Int) -> StressTest { with { $0.maxDecisionCount = count } }
}
