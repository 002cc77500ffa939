import StressCore

/// One cell of the matrix: a workload with its parameters, under one strategy, at
/// one thread count, for one repetition, with its own seed. Everything a trial
/// process needs to run it, and the identity every result record carries.
public struct TrialSpec: Sendable, Codable, Hashable {
    /// A stable, readable identifier: `experiment/strategy/t<threads>/r<repetition>`,
    /// with `/jemalloc` before the thread count for jemalloc trials.
    /// `stressbench run PLAN --only ID` runs just this trial.
    public var id: String
    /// Position in the order the plan's trials run (0-based): the matrix, or
    /// repetition first (a plan's `order: interleaved`).
    public var index: Int
    /// The plan's name.
    public var plan: String
    /// The experiment's name.
    public var experiment: String
    /// The workload's registered name.
    public var workload: String
    /// Its validated parameters (defaults filled in).
    public var parameters: WorkloadParameters
    /// The strategy's registered name.
    public var strategy: String
    /// Number of workers (threads, or tasks for actor strategies).
    public var threads: Int
    /// Repetition number (0-based).
    public var repetition: Int
    /// The trial's seed; every worker's stream derives from it. Below 2^53 so it
    /// survives JSON readers that use doubles.
    public var seed: UInt64
    // The times in nanoseconds, as trial processes and the results' JSON
    // carry them (the keys `warmupNs`, …: see `CodingKeys`); the public
    // face is the `Duration` accessors below.
    package var warmupNanoseconds: Int
    package var durationNanoseconds: Int?
    /// Operations per worker in the measured window, when it is count-bound.
    public var opsPerThread: Int?
    package var timeoutNanoseconds: Int
    package var deadlockAfterNanoseconds: Int
    /// The thread-fuzzing settings this trial uses (a portfolio already resolved
    /// to this repetition's profile).
    public var fuzz: FuzzSettings
    /// The clock and sampling of operation timing.
    package var timing: TimingSettings
    /// The allocator the trial process runs with.
    package var allocator: AllocatorKind
    /// Closed loop or paced.
    package var load: LoadSettings
    /// End the trial at its first violation.
    public var stopOnViolation: Bool
    /// True when ``workload`` names a scenario (role `i` on worker `i`, in
    /// rounds) rather than a workload; nil for a workload.
    public var scenario: Bool?
    /// For a per-resource mix (``strategy`` is then the plan's name for it):
    /// the strategies guarding resource 0, 1, …, the last one guarding the
    /// rest. Nil for a registered strategy.
    public var strategyParts: [String]?
    /// True when the trial process runs with the pthread interposer preloaded
    /// (the plan's `interpose: true`); nil otherwise.
    public var interpose: Bool?
    /// The plan's (or `--executor`'s) choice of executor for worker tasks; nil
    /// for the automatic one (see ``ExecutorChoice``).
    public var executor: ExecutorChoice?
    /// The outcomes the plan expects of this trial (its `expect` key); nil
    /// when it must pass, as every trial must unless the plan says otherwise.
    public var expect: [TrialOutcome]?
    // Who schedules the workers, as the JSON's `schedule` carries it: nil
    // for free, so that a free trial's record is what it was before the key
    // existed, and an old record reads as free; ``schedule`` is the public face.
    package var scheduleGiven: ScheduleMode?
    // A controlled trial's cap on decisions (the JSON's `maxDecisions`, the
    // plan's `max_decisions`); nil for a free trial unless its plan gave one
    // (kept for `--schedule controlled`, as the shrink bound is).
    // ``maxDecisions`` is the public face.
    package var maxDecisionsGiven: Int?
    /// `linearizable` when the plan asked for `check: linearizable`: the
    /// trial runs scenarios of the workload's operations and checks each
    /// round's history against its sequential model. Nil for the usual trial.
    public var check: Check?

    /// What a trial checks besides its workload's invariants.
    public enum Check: String, Sendable, Codable, Hashable {
        /// Each round's history against the workload's sequential model.
        case linearizable
    }

    /// The schedule `replay --schedule` makes a controlled trial follow, as
    /// its text (`w0:2,w1:3`); nil for the seed's own policy. Only replay sets it.
    package var forcedSchedule: String?
    /// How long a failed controlled trial's schedule is shrunk, in
    /// nanoseconds (the JSON's `shrinkNs`, the plan's `shrink`; 0: not
    /// shrunk). Nil when not given: a controlled trial then shrinks for
    /// ``PlanDefaults/shrinkNs``, a free one never (see ``shrinkBudgetNs``).
    package var shrinkNanoseconds: Int?
    // The exploration the trial runs, as the JSON's `explore` carries it;
    // ``exploration`` is the face the runner uses.
    package var explorationGiven: Exploration?
    /// With a stop by operations under control, only these workers run any
    /// (the JSON's `busyWorkers`, `--busy-workers`: the replay of a schedule
    /// shrunk to fewer busy workers). Nil: all.
    package var busyWorkers: BusyWorkers?
    /// A controlled trial stops once it has made this many decisions and
    /// writes its schedule and trace as its record (the JSON's
    /// `haltAfterDecisions`): the parent's replay of a crashed trial's
    /// recorded decisions, up to the crash, for its trace. Nil: it runs to its end.
    package var haltAfterDecisions: Int?

    /// A trial.
    package init(
        id: String, index: Int, plan: String, experiment: String, workload: String,
        parameters: WorkloadParameters, strategy: String, threads: Int, repetition: Int,
        seed: UInt64, warmupNs: Int, durationNs: Int?, opsPerThread: Int?, timeoutNs: Int,
        deadlockAfterNs: Int = Int(PlanDefaults.deadlockAfterNs), fuzz: FuzzSettings = FuzzSettings(.off),
        timing: TimingSettings = .standard, allocator: AllocatorKind = .system, load: LoadSettings = .closed,
        stopOnViolation: Bool = false, scenario: Bool? = nil, expect: [TrialOutcome]? = nil
    ) {
        self.expect = expect
        self.scenario = scenario
        self.stopOnViolation = stopOnViolation
        self.load = load
        self.timing = timing
        self.allocator = allocator
        self.deadlockAfterNanoseconds = deadlockAfterNs
        self.fuzz = fuzz
        self.id = id
        self.index = index
        self.plan = plan
        self.experiment = experiment
        self.workload = workload
        self.parameters = parameters
        self.strategy = strategy
        self.threads = threads
        self.repetition = repetition
        self.seed = seed
        self.warmupNanoseconds = warmupNs
        self.durationNanoseconds = durationNs
        self.opsPerThread = opsPerThread
        self.timeoutNanoseconds = timeoutNs
    }

    /// The results' JSON keys (and a trial process's input): the times keep
    /// the names they had when they were public integers.
    private enum CodingKeys: String, CodingKey {
        case id
        case index
        case plan
        case experiment
        case workload
        case parameters
        case strategy
        case threads
        case repetition
        case seed
        case warmupNanoseconds = "warmupNs"
        case durationNanoseconds = "durationNs"
        case opsPerThread
        case timeoutNanoseconds = "timeoutNs"
        case deadlockAfterNanoseconds = "deadlockAfterNs"
        case fuzz
        case timing
        case allocator
        case load
        case stopOnViolation
        case scenario
        case strategyParts
        case interpose
        case executor
        case expect
        case scheduleGiven = "schedule"
        case maxDecisionsGiven = "maxDecisions"
        case forcedSchedule
        case shrinkNanoseconds = "shrinkNs"
        case explorationGiven = "explore"
        case busyWorkers
        case haltAfterDecisions
        case check
    }
}

extension TrialSpec {
    /// The untimed warm-up before the measured window.
    public var warmup: Duration { .nanoseconds(warmupNanoseconds) }
    /// The length of the measured window, when the experiment is time-bound
    /// (nil when it is count-bound: see ``opsPerThread``).
    public var duration: Duration? { durationNanoseconds.map { .nanoseconds($0) } }
    /// How long the parent waits for the trial process before killing it.
    public var timeout: Duration { .nanoseconds(timeoutNanoseconds) }
    /// How long the watchdog lets every worker go without completing an
    /// operation before it reports a deadlock or a hang.
    public var deadlockAfter: Duration { .nanoseconds(deadlockAfterNanoseconds) }

    /// Who picks the next worker: the operating system (`free`, the default)
    /// or the harness, one worker at a time (`controlled`: the plan's
    /// `schedule`, `--schedule`). Setting `free` clears ``maxDecisions``
    /// and the exploration, which only a controlled trial runs.
    public var schedule: ScheduleMode {
        get { scheduleGiven ?? .free }
        set {
            scheduleGiven = newValue == .free ? nil : newValue
            if newValue == .free {
                maxDecisionsGiven = nil
                exploration = nil
            }
        }
    }

    /// How long a failed trial's schedule is shrunk, in nanoseconds: the
    /// given bound for a controlled trial (``PlanDefaults/shrinkNs`` when
    /// none was given), 0 for a free one, which has no schedule to shrink.
    package var shrinkBudgetNs: UInt64 {
        schedule == .controlled ? shrinkNanoseconds.map { UInt64(max(0, $0)) } ?? PlanDefaults.shrinkNs : 0
    }

    /// The most decisions a controlled trial makes before it ends (the plan's
    /// `max_decisions`, `--max-decisions`); 20,000
    /// when not given. Only a controlled trial makes decisions; making the
    /// trial free (``schedule``) clears it.
    public var maxDecisions: Int {
        get { maxDecisionsGiven ?? PlanDefaults.maxDecisions }
        set { maxDecisionsGiven = newValue }
    }
}
