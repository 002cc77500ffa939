/// What the engine needs to run one trial in this process.
package struct TrialSettings: Sendable {
    /// Number of workers.
    public var threads: Int
    /// The trial seed; worker seeds derive from it.
    public var seed: UInt64
    /// Untimed warm-up before the measured window (0 for none).
    public var warmupNs: UInt64
    /// When the measured window ends.
    public var stop: StopCondition
    /// How many violation messages each worker keeps in full (all are counted).
    public var samplesPerWorker: Int
    /// The watchdog reports a deadlock or hang when no worker has completed an
    /// operation for this long.
    public var stallAfterNs: UInt64
    /// Thread fuzzing (profile `off` by default).
    public var fuzz: FuzzSettings
    /// The clock and how many operations are timed.
    public var timing: TimingSettings
    /// Closed loop, or paced at a rate (resolved to ops/s per worker by the engine).
    public var load: LoadSettings
    /// End the trial at the first violation a worker sees (to find bugs fast;
    /// the figures then cover a shortened window).
    public var stopOnViolation: Bool
    /// Asked by the coordinating thread (never by a worker) every few
    /// milliseconds while the trial runs: when it returns true the trial ends
    /// early, as if its window were over. An in-process run stops the running
    /// trial on Ctrl-C with it. Nil: the trial ends only by its stop condition.
    public var stopRequested: (@Sendable () -> Bool)?
    /// Where worker tasks run their jobs; nil for the automatic choice (see ``ExecutorChoice``).
    public var executor: ExecutorChoice?
    /// The latest the watchdog reports a stall, from its start (about the
    /// start of the trial process): a little before the trial's timeout, so
    /// that a stall it cannot judge sooner ends as a `deadlock` or `hang`
    /// with every worker's position rather than a bare `timeout` (see
    /// ``WatchdogTiming``). Nil (a run without a timeout): ten limits, at least 2 s.
    public var latestStallReportNs: UInt64?
    /// Who picks the next worker: the operating system (`free`), or the
    /// harness, one worker at a time, by the fuzz policy and the seed
    /// (`controlled`, thread workers only).
    public var schedule: ScheduleMode = .free
    /// A controlled trial: the decisions to follow instead of the policy's
    /// (`replay --schedule`), one worker index each; past their end, or where
    /// one names a worker that cannot run, the policy decides again.
    public var forcedSchedule: [Int]?
    /// A controlled trial ends after this many decisions at the latest, so
    /// that its length, and so its end-of-trial checks, depend on the seed
    /// alone and not on how fast the machine runs it.
    public var maxDecisions: Int = PlanDefaults.maxDecisions
    /// A failed controlled trial's schedule is shrunk for at most this long
    /// (0: not shrunk).
    public var shrinkNs: UInt64 = 0
    /// Run the trial as a bounded exhaustive exploration instead of once.
    public var exploration: ExplorationSettings?
    /// How a controlled trial decides past its forced decisions, and
    /// whether it keeps every decision's alternatives (shrinking and
    /// exploration set these on the executions they run).
    var scheduleFallback = ControlledScheduler.Fallback.policy
    var recordsChoices = false
    /// Deviations from the non-preemptive schedule, by worker and that
    /// worker's decision count (shrinking's replays).
    var deviations: [ScheduleDeviation]?
    /// Whether the run's latency percentiles and histograms are worked out:
    /// off for shrinking's candidate runs, whose figures nobody reads (the
    /// trial's record keeps the failing run's).
    var summarizesLatency = true
    /// With a stop by operations under control: only these workers run any
    /// (shrinking's runs with fewer workers busy). Nil: all.
    package var busyWorkers: BusyWorkers?

    /// Whether `worker` runs operations in this trial: all do, unless a stop
    /// by operations leaves some idle (``busyWorkers``).
    func runsOperations(_ worker: Int) -> Bool {
        guard let busyWorkers, stop.opsPerThread != nil else { return true }
        return busyWorkers.contains(worker)
    }
    /// A controlled trial halts once it has made this many decisions,
    /// handing its schedule and trace to ``onHalt`` before the worker
    /// chosen last runs: how the parent draws the trace of a crashed
    /// trial, by replaying its recorded decisions up to the crash.
    package var haltAfterDecisions: Int?
    package var onHalt: (@Sendable (_ schedule: ScheduleRecord, _ trace: [TraceEvent]) -> Void)?

    /// Settings.
    public init(threads: Int, seed: UInt64, warmupNs: UInt64, stop: StopCondition, samplesPerWorker: Int = 3,
                stallAfterNs: UInt64 = PlanDefaults.deadlockAfterNs, fuzz: FuzzSettings = FuzzSettings(.off),
                timing: TimingSettings = .standard, load: LoadSettings = .closed, stopOnViolation: Bool = false) {
        self.load = load
        self.stopOnViolation = stopOnViolation
        self.fuzz = fuzz
        self.timing = timing
        self.threads = threads
        self.seed = seed
        self.warmupNs = warmupNs
        self.stop = stop
        self.samplesPerWorker = samplesPerWorker
        self.stallAfterNs = stallAfterNs
    }

    /// These settings with fuzzing off.
    var withoutFuzzing: TrialSettings {
        var s = self
        s.fuzz = FuzzSettings(.off)
        return s
    }
}
