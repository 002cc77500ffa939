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
    /// A stall that shrinking or exploration found and ended (the trial's
    /// outcome is then the stall's kind).
    package var stall: StallReport?
    /// A controlled execution's decisions with their alternatives, when kept.
    var choices: [ControlledScheduler.Choice]?
    /// A controlled trial's preemptions (switches away from a worker that could go on).
    package var preemptions: Int?
    /// A controlled trial's events noted in all (``trace`` keeps the last ones).
    package var traceEventCount: Int?
    /// The loop each worker ran its measured window in, for the tests that
    /// check which loop the engine chose.
    var measuredLoops: [MeasuredLoopKind] = []
}
