import StressCore

/// A validated plan: what to run. Made by ``PlanLoader`` from a YAML or JSON file;
/// every value in it has been checked against the registry.
package struct Plan: Sendable {
    /// The plan's name (the `name` key, or the file's base name).
    public var name: String
    /// Where it was read from (for messages and rerun commands).
    public var file: String
    /// Free text from the `description` key.
    public var description: String?
    /// The experiments, in file order.
    public var experiments: [Experiment]
    /// Thresholds and baseline-comparison settings (the `thresholds` and `gate` keys).
    public var gate = GatePolicy()
    /// The plan's `allow_large: true`: it may have more than
    /// ``PlanDefaults/maxThreadsWithoutOptIn`` workers in a trial, or run
    /// for longer than ``PlanDefaults/maxPlannedSecondsWithoutOptIn``.
    public var allowLarge = false
    /// The order trials run in: the `order` key, else ``TrialOrder/interleaved``
    /// for a plan meant for baseline comparisons (a `gate` key or a threshold
    /// relative to a baseline) and ``TrialOrder/matrix`` for any other.
    public var order = TrialOrder.matrix
    /// The plan's `sanitizer: thread`: it is meant for a ThreadSanitizer
    /// build, whose data races become violations; the loader refuses it in
    /// any other build. Nil when the plan does not say.
    public var sanitizer: String?

    /// A plan.
    public init(name: String, file: String, description: String? = nil, experiments: [Experiment]) {
        self.name = name
        self.file = file
        self.description = description
        self.experiments = experiments
    }
}

/// The order a plan's trials run in.
package enum TrialOrder: String, Sendable, CaseIterable {
    /// Each cell's repetitions one after another: experiment, then strategy,
    /// allocator, threads, repetition, in that nesting order.
    case matrix
    /// Repetition first: every cell's first repetition, then every cell's
    /// second, and so on (cells in matrix order within a round). A cell's
    /// repetitions are then spread over the whole run instead of sitting
    /// together in one stretch of it, so a slow stretch of a shared machine
    /// (which can last seconds and move a contended queue's throughput tenfold)
    /// falls on some repetitions of many cells, not on all repetitions of a
    /// few: the spread a baseline comparison sees within a cell is then the
    /// spread between runs too, and it calls fewer false regressions.
    case interleaved
}

/// One experiment: a workload with parameters, crossed with strategies, thread
/// counts and repetitions.
package struct Experiment: Sendable {
    /// Unique within the plan; the first part of every trial id.
    public var name: String
    /// Free text.
    public var description: String?
    /// The workload's (or scenario's) registered name.
    public var workload: String
    /// True when ``workload`` names a scenario (the plan's `scenario:` key).
    public var isScenario = false
    /// Its parameters, defaults filled in.
    public var parameters: WorkloadParameters
    /// Strategy names, in the order trials run.
    public var strategies: [String]
    /// Worker counts.
    public var threads: [Int]
    /// When each trial's measured window ends.
    public var stop: StopCondition
    /// Trials per (strategy, threads) cell.
    public var repetitions: Int
    /// True when the plan set `repetitions` (here or in `defaults`), false when
    /// it is the default, which a gated run may raise (``ComparisonSettings/samplesNeeded(forCells:)``).
    public var repetitionsGiven: Bool
    /// The base seed trial seeds derive from.
    public var seed: UInt64
    /// Untimed warm-up per trial.
    public var warmupNs: UInt64
    /// Per-trial timeout; nil means "work it out from the duration".
    public var timeoutNs: UInt64?
    /// The watchdog's stall limit.
    public var deadlockAfterNs: UInt64
    /// Thread fuzzing.
    public var fuzz: FuzzSettings
    /// Operation timing.
    public var timing: TimingSettings
    /// Allocators to run under (a dimension of the matrix).
    public var allocators: [AllocatorKind]
    /// Closed loop or paced.
    public var load: LoadSettings
    /// End each trial at its first violation.
    public var stopOnViolation: Bool
    /// The per-resource mixes among ``strategies``: a mix's name to its
    /// strategies, resource `i` guarded by the `i`th (the last one guarding
    /// the rest). Empty when the experiment names only registered strategies.
    public var strategyParts: [String: [String]] = [:]
    /// `interpose`: run each trial process with the pthread interposer
    /// preloaded (`libStressInterpose.so`), so the code under test's own
    /// `NSLock`, `NSCondition` and pthread locks are seen without a change.
    public var interpose = false
    /// `check: linearizable`: the trials check each round's history against
    /// the workload's sequential model instead of running its operations in a
    /// closed loop (see docs/linearizability.md). False for the usual trials.
    public var checksLinearizability = false
    /// `executor`: where worker tasks run their jobs (``ExecutorChoice``); nil
    /// for the automatic choice (the harness executor for a program with an
    /// `async` step, Swift's global executor otherwise).
    public var executor: ExecutorChoice?
    /// `schedule`: who picks the next worker, the operating system (`free`,
    /// the default) or the harness by the seed, one worker at a time
    /// (`controlled`).
    public var schedule = ScheduleMode.free
    /// `max_decisions`: a controlled trial's most decisions.
    public var maxDecisions = PlanDefaults.maxDecisions
    /// `shrink`: how long a failed controlled trial's schedule is shrunk, in
    /// nanoseconds (0: `shrink: false`). A free trial has no schedule to shrink.
    package var shrinkNs = PlanDefaults.shrinkNs
    /// `explore`: run each trial as a bounded exhaustive exploration of its
    /// schedules (which makes it controlled); nil to run it once.
    package var exploration: ExplorationSettings?
    /// `hunt`: how long, in nanoseconds, to hunt under control for each of
    /// its trials that fails free-running, after the run (0: no hunt, the
    /// default). A controlled trial has its own trace and is never hunted.
    package var huntNs: UInt64 = 0
    /// What its trials must do (the `expect` key): pass, unless it says otherwise.
    public var expect = Expectation.passing

    /// An experiment.
    public init(
        name: String, description: String? = nil, workload: String, parameters: WorkloadParameters,
        strategies: [String], threads: [Int], stop: StopCondition, repetitions: Int, repetitionsGiven: Bool = true, seed: UInt64,
        warmupNs: UInt64, timeoutNs: UInt64?, deadlockAfterNs: UInt64 = PlanDefaults.deadlockAfterNs,
        fuzz: FuzzSettings = FuzzSettings(.off), timing: TimingSettings = .standard,
        allocators: [AllocatorKind] = [.system], load: LoadSettings = .closed, stopOnViolation: Bool = false
    ) {
        self.stopOnViolation = stopOnViolation
        self.load = load
        self.allocators = allocators
        self.fuzz = fuzz
        self.timing = timing
        self.deadlockAfterNs = deadlockAfterNs
        self.name = name
        self.description = description
        self.workload = workload
        self.parameters = parameters
        self.strategies = strategies
        self.threads = threads
        self.stop = stop
        self.repetitions = repetitions
        self.repetitionsGiven = repetitionsGiven
        self.seed = seed
        self.warmupNs = warmupNs
        self.timeoutNs = timeoutNs
    }
}

