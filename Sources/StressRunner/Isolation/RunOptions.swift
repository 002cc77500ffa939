import Foundation
import StressCore

/// Options for running a plan.
public struct RunOptions: Sendable {
    /// Where trials run (default: child processes of the running binary).
    public var isolation: TrialIsolation
    /// Run only trials whose id equals one of these or starts with one of these
    /// followed by `/` (so `bank` selects an experiment, `bank/mutex` a strategy
    /// in it). Empty: run everything.
    public var only: [String]
    /// Use this seed for every selected trial instead of its derived seed (to
    /// rerun one trial exactly, with `only`).
    public var seed: UInt64?
    /// Every trial's timeout in nanoseconds (``timeout``).
    package var timeoutNs: UInt64?
    /// Every trial's stall limit in nanoseconds (``deadlockAfter``).
    package var deadlockAfterNs: UInt64?
    /// Override every trial's fuzzing profile (the `--fuzz` option).
    public var fuzz: FuzzProfile?
    /// Run every experiment under this allocator only (the `--allocator` option).
    package var allocator: AllocatorKind?
    /// End every trial at its first violation (the `--stop-on-violation` option).
    public var stopOnViolation: Bool
    /// Stop after the first trial that does not pass.
    public var failFast: Bool
    /// Append each trial's record, as soon as it finishes, as one JSON line to
    /// this file (created or truncated at the start), so a run killed halfway
    /// still leaves every finished trial readable.
    public var streamPath: String?
    /// Catch SIGINT and SIGTERM: stop starting trials, end the running one, and
    /// return what finished, marked interrupted (a second SIGINT exits at once).
    /// The command line turns this on; a library caller decides for itself.
    public var handleInterrupts: Bool
    /// Run only this slice of the matrix (`--shard i/n`); applied before `only`.
    package var shard: TrialShard?
    /// Trials per cell for every experiment, overriding the plan (`--repetitions`).
    public var repetitions: Int?
    /// Every trial's measured window, overriding the plan's `duration` or
    /// `ops` (`--duration`: a quick smoke run of a whole plan, as in CI).
    package var durationNs: UInt64?
    /// Every trial's untimed warm-up, overriding the plan's `warmup`
    /// (`--warmup`; zero for none, except for experiments paced at a share
    /// of their capacity, which is measured during the warm-up).
    package var warmupNs: UInt64?
    /// The baseline the run is compared with (`--baseline`). The runner does
    /// not read it; rerun commands carry it, because a comparison raises the
    /// repetitions of experiments that leave them to the default, which
    /// decides which trials exist.
    public var baselineFile: String?
    /// `--executor`: where every trial's worker tasks run their jobs, overriding the plan.
    public var executor: ExecutorChoice?
    /// `--schedule`: who picks every trial's next worker, overriding the
    /// plan: the operating system (`free`) or the harness, one thread worker
    /// at a time, by the seed (`controlled`).
    public var schedule: ScheduleMode?
    /// `--max-decisions`: every controlled trial's most decisions, overriding
    /// the plan's `max_decisions`.
    package var maxDecisions: Int?
    /// `replay --schedule w0:2,…`: the recorded schedule every trial follows
    /// (its text, checked against the trial's workers by replay); it makes
    /// the trial controlled.
    package var forcedSchedule: String?
    /// `--explore`: run every selected trial as a bounded exhaustive
    /// exploration of its schedules (which makes it controlled), overriding
    /// the plan's `explore`. With ``shard``, each trial explores its share of
    /// the schedule space instead of the run taking a share of the matrix.
    package var exploration: ExplorationSettings?
    /// `--shrink-seconds N` (N s) or `--no-shrink` (0): how long every failed
    /// controlled trial's schedule is shrunk, overriding the plan's `shrink`.
    package var shrinkNs: UInt64?
    /// `--hunt SECONDS` (0: none): how long to hunt under control for each
    /// free-running failure after the run, overriding every experiment's
    /// `hunt`; nil keeps the plan's.
    package var huntNs: UInt64?
    /// `--ops N`: every trial's measured window is N operations per worker
    /// (a scenario's: N rounds), overriding the plan's `duration` or `ops`
    /// (a shrunk schedule's replay needs the operations it was shrunk to).
    package var opsPerThread: Int?
    /// `--busy-workers N` or `--busy-workers w1,w3`: with a stop by
    /// operations, only the first N workers, or the listed ones, of a
    /// controlled trial run any (a shrunk schedule's replay, when shrinking
    /// left the others idle).
    package var busyWorkers: BusyWorkers?
    /// The name rerun commands start with: the executable as invoked
    /// (`stressbench`, or a team's own build of it).
    public var executableName: String
    /// What ran the executable (`["swift", "run", "-c", "release"]`), for
    /// rerun commands; nil when it was invoked directly.
    public var launcher: [String]?
    /// The plan was loaded with `--allow-large` (rerun commands carry it, so
    /// the plan loads again).
    public var allowLarge = false
    /// Accept trials this run cannot run (`--allow-skipped`): a run that
    /// skipped every trial, or one its plan expects to fail, for lack of
    /// jemalloc, the interposer or a child process, then exits by what did
    /// run instead of with 3 (``RunReport/uncheckedTrials``).
    public var allowSkipped = false
    /// Variables added to each trial process's environment (a ``StressTest``
    /// run isolated names the call its re-run test binary must take the trial at).
    public var childEnvironment: [String: String] = [:]

    /// How this run's trials and cells are rerun exactly: the executable and
    /// every override above that changes which trials exist or how they run.
    package var rerun: RerunCommand { RerunCommand(executable: executableName, launcher: launcher, overridesOf: self) }

    /// Options for a run of `isolation`; every other setting left out keeps
    /// what the plan says.
    ///
    /// - Parameters:
    ///   - isolation: where trials run (the default: child processes of this
    ///     binary, which must then be one that answers `_trial`).
    ///   - only: trial ids or id prefixes to run; empty runs every trial.
    ///   - seed: one seed for every selected trial (to rerun one exactly).
    ///   - timeout: every trial's timeout, overriding the plan's.
    ///   - deadlockAfter: every trial's stall limit (`deadlock_after`).
    ///   - fuzz: every trial's fuzzing profile.
    ///   - stopOnViolation: end every trial at its first violation.
    ///   - failFast: stop after the first trial that does not pass.
    ///   - streamPath: a file each finished trial's record is appended to.
    ///   - handleInterrupts: catch SIGINT and SIGTERM and stop cleanly.
    ///   - repetitions: trials per cell, overriding the plan.
    ///   - baselineFile: the baseline the run is compared with (for rerun commands).
    ///   - executableName: the name rerun commands start with.
    public init(
        isolation: TrialIsolation = .currentExecutable, only: [String] = [], seed: UInt64? = nil,
        timeout: Duration? = nil, deadlockAfter: Duration? = nil, fuzz: FuzzProfile? = nil,
        stopOnViolation: Bool = false, failFast: Bool = false,
        streamPath: String? = nil, handleInterrupts: Bool = false,
        repetitions: Int? = nil, baselineFile: String? = nil, executableName: String = "stressbench"
    ) {
        self.repetitions = repetitions
        self.baselineFile = baselineFile
        self.executableName = executableName
        self.stopOnViolation = stopOnViolation
        self.fuzz = fuzz
        self.isolation = isolation
        self.only = only
        self.seed = seed
        self.timeoutNs = timeout.map(Quantities.nanoseconds)
        self.deadlockAfterNs = deadlockAfter.map(Quantities.nanoseconds)
        self.failFast = failFast
        self.streamPath = streamPath
        self.handleInterrupts = handleInterrupts
    }

    /// Every trial's timeout, overriding the plan's; nil keeps the plan's. It
    /// must be longer than zero: running with a zero or negative one throws.
    public var timeout: Duration? {
        get { timeoutNs.map { .nanoseconds($0) } }
        set { timeoutNs = newValue.map(Quantities.nanoseconds) }
    }

    /// Every trial's stall limit (`deadlock_after`), overriding the plan's; nil
    /// keeps the plan's. Longer than zero, as ``timeout``.
    public var deadlockAfter: Duration? {
        get { deadlockAfterNs.map { .nanoseconds($0) } }
        set { deadlockAfterNs = newValue.map(Quantities.nanoseconds) }
    }

    /// Every trial's measured window, overriding the plan's `duration` or
    /// `ops`; nil keeps the plan's. Longer than zero, as ``timeout``.
    public var duration: Duration? {
        get { durationNs.map { .nanoseconds($0) } }
        set { durationNs = newValue.map(Quantities.nanoseconds) }
    }

    /// Every trial's untimed warm-up before its measured window, overriding
    /// the plan's `warmup`; nil keeps the plan's. Zero means none, and is
    /// refused for a plan with an experiment paced at a share of its
    /// capacity (`rate: 50%`), which is measured during the warm-up.
    public var warmup: Duration? {
        get { warmupNs.map { .nanoseconds($0) } }
        set { warmupNs = newValue.map(Quantities.nanoseconds) }
    }

    /// What is wrong with the overrides a caller set from Swift, nil when
    /// nothing is: a timeout, stall limit or window of zero (or a negative
    /// `Duration`, which becomes zero) would make every trial fail at once,
    /// which no caller means. The command line refuses such values itself.
    package var overrideProblem: String? {
        for (name, value) in [("timeout", timeoutNs), ("deadlockAfter", deadlockAfterNs), ("duration", durationNs)] where value == 0 {
            return "RunOptions.\(name) must be longer than zero"
        }
        return nil
    }

    /// The earlier form, with durations in nanoseconds.
    ///
    /// - Parameters:
    ///   - isolation: Where each trial runs.
    ///   - only: Trial ids (or their prefixes) to run; empty for all.
    ///   - seed: A seed for every trial, overriding the plan's; nil keeps the plan's.
    ///   - timeoutNs: Every trial's timeout in nanoseconds; nil keeps the plan's.
    ///   - deadlockAfterNs: Every trial's stall limit in nanoseconds; nil keeps the plan's.
    ///   - fuzz: A fuzzing profile for every trial; nil keeps the plan's.
    ///   - stopOnViolation: End each trial at its first violation.
    ///   - failFast: Stop the run at the first trial that fails.
    ///   - streamPath: A file to append each record to as it is made (JSON lines); nil for none.
    ///   - handleInterrupts: Turn SIGINT and SIGTERM into an interrupted report.
    ///   - repetitions: Repetitions of every cell, overriding the plan's; nil keeps the plan's.
    ///   - baselineFile: Results to compare the run with; nil for none.
    ///   - executableName: What rerun commands call the executable.
    @available(*, deprecated, message: "use init(isolation:only:seed:timeout:deadlockAfter:...) with Duration values")
    public init(
        isolation: TrialIsolation = .currentExecutable, only: [String] = [], seed: UInt64? = nil,
        timeoutNs: UInt64?, deadlockAfterNs: UInt64? = nil, fuzz: FuzzProfile? = nil,
        stopOnViolation: Bool = false, failFast: Bool = false,
        streamPath: String? = nil, handleInterrupts: Bool = false,
        repetitions: Int? = nil, baselineFile: String? = nil, executableName: String = "stressbench"
    ) {
        self.init(isolation: isolation, only: only, seed: seed, fuzz: fuzz, stopOnViolation: stopOnViolation,
                  failFast: failFast, streamPath: streamPath, handleInterrupts: handleInterrupts,
                  repetitions: repetitions, baselineFile: baselineFile, executableName: executableName)
        self.timeoutNs = timeoutNs
        self.deadlockAfterNs = deadlockAfterNs
    }
}
