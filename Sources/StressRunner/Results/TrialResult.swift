import StressCore

/// How a trial ended.
public enum TrialOutcome: String, Sendable, Codable, CaseIterable {
    /// Ran to the end; every invariant held.
    case passed
    /// Ran to the end; at least one invariant broke.
    case violated
    /// Did not finish within its timeout and was killed.
    case timeout
    /// The watchdog saw every unfinished worker waiting on another (a deadlock,
    /// a `sync` onto the queue one is on, a lock-order inversion).
    case deadlock
    /// The watchdog saw no operation complete while a worker was still running
    /// (an endless loop, an operation that never ends).
    case hang
    /// The trial process died (a signal, a Swift runtime trap, a non-zero exit).
    case crashed
    /// The harness could not run it or could not read its result (for example
    /// the trial process printed something that is not a result record).
    case error
    /// Not run (for example a run interrupted before it got there).
    case skipped

    /// Whether the outcome is a failure of the code under test or of the harness.
    public var isFailure: Bool { self != .passed && self != .skipped }
}

/// Why a trial did not produce its own record.
package struct FailureReport: Sendable, Codable, Equatable {
    /// A one-line explanation.
    public var message: String
    /// The signal that killed the trial process (`SIGILL`, `SIGKILL`, ...).
    public var signal: String?
    /// The process's exit status when it exited rather than died.
    public var exitStatus: Int?
    /// At most 20 lines the trial process wrote to its standard output and
    /// error, in order: those that explain how it ended (the runtime's
    /// `Fatal error: ...`, the crash report's first lines), then its last
    /// ones; where lines were left out, a line says how many.
    public var outputTail: [String]
    /// For a `skipped` trial that this run could not run: what it lacked
    /// (`jemalloc`, `the interposer`, `a child process`); the message says
    /// how to get it. Nil for a trial not run because the run stopped first.
    public var missing: String?

    /// A report.
    public init(message: String, signal: String? = nil, exitStatus: Int? = nil, outputTail: [String] = [], missing: String? = nil) {
        self.message = message
        self.signal = signal
        self.exitStatus = exitStatus
        self.outputTail = outputTail
        self.missing = missing
    }
}

/// The record of one trial: what ran, how it ended, what was measured.
public struct TrialResult: Sendable, Codable, Equatable {
    /// The trial as the matrix made it (identity and settings).
    public var trial: TrialSpec
    /// How it ended.
    public var outcome: TrialOutcome
    /// The figures; nil when the trial did not run to the end.
    public var measurement: TrialMeasurement?
    /// The checks that failed while the trial ran and at its end: how many,
    /// and the first ones in full.
    public var violations: ViolationReport
    /// Why it failed, for `deadlock`, `hang`, `timeout`, `crashed`, `error` and `skipped`.
    package var failure: FailureReport?
    /// Where every worker was, for `deadlock` and `hang`.
    public var stall: StallReport?
    /// The command that reruns exactly this trial (set for every trial that did not pass).
    public var rerunCommand: String?
    /// Where it ran.
    package var environment: EnvironmentInfo
    /// A scenario's trial: how many rounds it ran (warm-up included; every
    /// one's outcome is counted); for a stalled one (a `deadlock` or a
    /// `hang`), how many every role had completed before the stall. Nil for
    /// a workload's, and for a scenario's whose process died or was killed
    /// before it could tell.
    public var rounds: Int?
    /// A trial whose worker tasks ran on the harness executor: what it did
    /// (jobs, reorders, delays, sleeps, threads). Nil otherwise.
    package var executorStats: ExecutorStats?
    /// A scenario's trial: each distinct outcome of its rounds with its count
    /// and grade (`acceptable`, `interesting`, `forbidden`). Nil for a workload's.
    package var outcomes: [OutcomeCount]?
    /// How its workers were scheduled: `mode: free`, or a controlled
    /// trial's decisions (their count, and their text for `replay
    /// --schedule`) and whether the control was full. Nil for a trial that
    /// did not run, or whose process died before it could tell.
    public var schedule: ScheduleRecord?
    /// A failed controlled trial: the interleaving that led to the failure,
    /// one event per scheduling point (shrunk when ``shrink`` says so). Nil
    /// otherwise.
    public var trace: [TraceEvent]?
    /// A failed controlled trial whose schedule was shrunk: the sizes before
    /// and after. Nil otherwise.
    public var shrink: ScheduleRecord.Shrinking?
    /// A trial run as a bounded exhaustive exploration: how many schedules
    /// it ran, how many failed, and whether that was all of them. Nil otherwise.
    public var exploration: ScheduleRecord.Exploration?
    /// A linearizability check's trial: its verdict, how many scenarios and
    /// histories it checked and, when violated, the smallest failing
    /// scenario's history. Nil for any other trial.
    package var linearizability: LinearizabilityRecord?
    // In nanoseconds (the JSON's `wallNs`); ``wallTime`` is the public face.
    package var wallNanoseconds: Int?
    /// A trial that failed free-running where control could run it: the
    /// command that hunts for the same failure under control, where it can
    /// be traced. Nil otherwise.
    package var huntCommand: String?
    /// What hunting under control found for this free-running failure
    /// (`run --hunt`, the plan's `hunt`, `StressTest.hunt(seconds:)`).
    /// Nil when no hunt ran for it.
    package var hunt: HuntRecord?

    /// A record.
    package init(
        trial: TrialSpec, outcome: TrialOutcome, measurement: TrialMeasurement?,
        violations: ViolationReport, failure: FailureReport?, stall: StallReport? = nil,
        environment: EnvironmentInfo = .current
    ) {
        self.stall = stall
        self.trial = trial
        self.outcome = outcome
        self.measurement = measurement
        self.violations = violations
        self.failure = failure
        self.environment = environment
    }

    /// A record for a trial that produced no figures of its own.
    package static func failed(_ trial: TrialSpec, _ outcome: TrialOutcome, _ failure: FailureReport) -> TrialResult {
        TrialResult(trial: trial, outcome: outcome, measurement: nil, violations: .none, failure: failure)
    }

    /// The results' JSON keys: the nanosecond fields keep the names they
    /// had when they were public integers.
    private enum CodingKeys: String, CodingKey {
        case trial
        case outcome
        case measurement
        case violations
        case failure
        case stall
        case rerunCommand
        case environment
        case rounds
        case executorStats
        case outcomes
        case schedule
        case trace
        case shrink
        case exploration
        case linearizability
        case wallNanoseconds = "wallNs"
        case huntCommand
        case hunt
    }
}

extension TrialResult {
    /// How long the trial took as the harness saw it, from starting it to
    /// having its record (process start, warm-up, a watchdog's wait or a
    /// crash included): the figure for a crashed or deadlocked trial, which
    /// has no measured window. Nil in records from before it was kept.
    public var wallTime: Duration? { wallNanoseconds.map { .nanoseconds($0) } }
}
