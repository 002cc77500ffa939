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
    /// A failed controlled trial's interleaving (see ``TraceEvent``).
    package var trace: [TraceEvent]?
    /// How a failed controlled trial's schedule was shrunk.
    package var shrink: ScheduleRecord.Shrinking?
    /// What a bounded exhaustive exploration did.
    package var exploration: ScheduleRecord.Exploration?
    /// A linearizability check's verdict and, when violated, its history.
    package var linearizability: LinearizabilityRecord?
    /// The loop each worker ran its measured window in, for the tests that
    /// check which loop the engine chose.
    var measuredLoops: [MeasuredLoopKind] = []
}
