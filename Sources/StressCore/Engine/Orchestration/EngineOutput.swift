/// What the engine produces for one trial in this process.
package struct EngineOutput: Sendable {
    /// The figures.
    public var measurement: TrialMeasurement
    /// Broken invariants, from workers and final checks.
    public var violations: ViolationReport
    /// A scenario's rounds and their outcomes; nil for a workload.
    public var rounds: ScenarioRounds?
    /// What the harness executor did, when the worker tasks ran on it.
    public var executor: ExecutorStats?
    /// How the workers were scheduled: `free`, or the decisions of a controlled trial.
    public var schedule: ScheduleRecord = .free
    /// The loop each worker ran its measured window in, for the tests that
    /// check which loop the engine chose.
    var measuredLoops: [MeasuredLoopKind] = []
}
