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

/// One broken invariant, as a worker or a final check saw it.
public struct ViolationSample: Sendable, Codable, Equatable {
    /// The worker that saw it; nil for final checks after all workers stopped.
    public var thread: Int?
    /// The operation (or `final-check`).
    public var operation: String
    /// The step inside the operation, when a step saw it.
    public var step: String?
    /// The worker's op number (0-based, warm-up included) when it saw it.
    public var opNumber: Int?
    /// What broke: the check's message, in words.
    public var message: String

    /// A sample of one failed check.
    package init(thread: Int?, operation: String, step: String?, opNumber: Int?, message: String) {
        self.thread = thread
        self.operation = operation
        self.step = step
        self.opNumber = opNumber
        self.message = message
    }

    /// One line for terminals: "thread 1, op #5123 transfer/debit: ...".
    public var summaryLine: String {
        var place = thread.map { "thread \($0)" } ?? "after the run"
        if let n = opNumber { place += ", op #\(n)" }
        return "\(place), \(operation)\(step.map { "/\($0)" } ?? ""): \(message)"
    }
}

/// All violations of a trial: the exact count and the first few in full.
public struct ViolationReport: Sendable, Codable, Equatable {
    /// How many invariant checks failed, over all workers and final checks.
    public var count: Int
    /// The first few (per worker, then final checks), in full.
    public var samples: [ViolationSample]
    // In nanoseconds, as the results' JSON has it; ``firstAfter`` is the public face.
    package var firstAfterNanoseconds: Int?

    /// The report of a trial in which no check failed.
    public static let none = ViolationReport(count: 0, samples: [])

    /// A report of `count` failed checks, of which `samples` are kept in full.
    package init(count: Int, samples: [ViolationSample], firstAfterNs: Int? = nil) {
        self.count = count
        self.samples = samples
        self.firstAfterNanoseconds = firstAfterNs
    }

    /// The results' JSON keys: the nanosecond fields keep the names they
    /// had when they were public integers.
    private enum CodingKeys: String, CodingKey {
        case count
        case samples
        case firstAfterNanoseconds = "firstAfterNs"
    }
}

extension ViolationReport {
    /// Time from the start of the trial (warm-up included) to the first
    /// violation a worker saw; nil when only final checks (or nothing) failed.
    public var firstAfter: Duration? { firstAfterNanoseconds.map { .nanoseconds($0) } }
}

/// What was measured in a trial that ran to the end.
public struct TrialMeasurement: Sendable, Codable, Equatable {
    // Measured wall time in nanoseconds (the JSON's `elapsedNs`); ``elapsed`` is the public face.
    package var elapsedNanoseconds: Int
    /// Operations completed in the measured window, all workers.
    public var totalOps: Int
    /// `totalOps / elapsed`.
    public var opsPerSecond: Double
    /// Operations completed in the measured window by each worker.
    public var perThreadOps: [Int]
    /// Operations completed in the measured window, by operation name.
    public var operations: [String: Int]
    /// Operations run during warm-up (not timed, not in the figures above).
    public var warmupOps: Int
    /// What the latency figures are: `service-time` is the time from an op's start
    /// to its end on the worker that ran it (closed loop: each worker starts its
    /// next op when the last one ends).
    public var latencyKind: String
    /// Per-op latency percentiles; nil when no op was timed.
    public var latency: LatencySummary?
    /// The merged latency histogram as `[value_ns, count]` buckets.
    public var histogram: [[UInt64]]
    /// Figures the workload reports about itself (``Workload/metrics(_:)``).
    public var workloadMetrics: [String: Double]
    /// How operations were timed.
    package var timing: TimingInfo?
    /// Time spent waiting to acquire (lock, queue entry, actor hop), per timed
    /// operation, summed over its guarded steps; nil when no step waited.
    public var acquireLatency: LatencySummary?
    // Per worker, in nanoseconds (the JSON's `maxStallNs`); ``longestGaps`` is the public face.
    package var longestGapNanoseconds: [Int]?
    /// How evenly the workers shared the work (nil for one worker).
    package var fairness: Fairness?
    /// CPU, context switches and memory of the trial process in the window.
    package var resources: ResourceUsage?
    /// The allocator and what it counted (figures nil where unavailable).
    package var allocator: AllocatorMetrics?
    /// Paced runs: the latency a caller with this arrival schedule would see,
    /// from each operation's intended start to its end (free of coordinated
    /// omission). `latency` stays the service time.
    public var responseLatency: LatencySummary?
    /// Paced runs: target and achieved rate, largest lag, whether it kept up.
    package var pacing: PacingReport?
    /// The merged acquire-wait histogram as `[value_ns, count]` buckets (so
    /// repetitions can be merged); nil when no step waited.
    public var acquireHistogram: [[UInt64]]?
    /// Paced runs: the merged response-time histogram as `[value_ns, count]` buckets.
    public var responseHistogram: [[UInt64]]?
    /// A scenario's trial: rounds completed per second of the measured window
    /// (`opsPerSecond` counts each role's run as an operation).
    public var roundsPerSecond: Double?

    /// The results' JSON keys: the nanosecond fields keep the names they
    /// had when they were public integers.
    private enum CodingKeys: String, CodingKey {
        case elapsedNanoseconds = "elapsedNs"
        case totalOps
        case opsPerSecond
        case perThreadOps
        case operations
        case warmupOps
        case latencyKind
        case latency
        case histogram
        case workloadMetrics
        case timing
        case acquireLatency
        case longestGapNanoseconds = "maxStallNs"
        case fairness
        case resources
        case allocator
        case responseLatency
        case pacing
        case acquireHistogram
        case responseHistogram
        case roundsPerSecond
    }
}

/// How a trial timed its operations, as recorded in its result.
package struct TimingInfo: Sendable, Codable, Equatable {
    /// `tsc` or `monotonic` (what `auto` resolved to).
    public var clock: String
    /// One operation in this many was timed (1: every one), over all workers:
    /// measured operations divided by timed ones, rounded. Each timed op counts
    /// as its worker's interval in the histogram.
    public var sampleEvery: Int
    /// The measured cost of one clock reading on this machine, in ns.
    public var clockReadNs: Double
    /// `auto` (each worker picked its interval from what timing cost its first operations),
    /// `fixed` (the plan's `timing.sample`) or `paced` (a paced load times every
    /// operation). Nil in results written before it existed.
    public var sampling: String?
    /// Operations actually timed: the observations behind the percentiles.
    /// With `auto`, the histogram's count can fall short of the measured
    /// operations by the probe's untimed ones (at most 256 per worker), which
    /// no timed operation stands for.
    public var timedOps: Int?
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
    /// Broken invariants.
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
    // In nanoseconds (the JSON's `wallNs`); ``wallTime`` is the public face.
    package var wallNanoseconds: Int?

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
        case wallNanoseconds = "wallNs"
    }
}

extension TrialMeasurement {
    /// Measured wall time: from the start barrier's release to the last worker's end.
    public var elapsed: Duration { .nanoseconds(elapsedNanoseconds) }
    /// Per worker, the longest time between two timed completions: a stall that
    /// closed-loop service times hide (a worker descheduled between operations).
    /// With sampled timing it spans the untimed operations between two timed
    /// ones too. Nil when no operation was timed.
    public var longestGaps: [Duration]? { longestGapNanoseconds?.map { .nanoseconds($0) } }
}

extension TrialResult {
    /// How long the trial took as the harness saw it, from starting it to
    /// having its record (process start, warm-up, a watchdog's wait or a
    /// crash included): the figure for a crashed or deadlocked trial, which
    /// has no measured window. Nil in records from before it was kept.
    public var wallTime: Duration? { wallNanoseconds.map { .nanoseconds($0) } }
}
