import ArgumentParser
import StressKit

/// The options that change which trials a plan has or how they run, shared by
/// `run` and `replay`: every rerun command `run` prints carries the ones in
/// effect, so `replay` must accept them all to take a pasted command.
struct TrialOverrides: ParsableArguments {
    @Option(name: .customLong("trial-timeout"), parsing: .unconditional, help: ArgumentHelp("Kill a trial that runs longer than this (e.g. 30s); default: each trial's own timeout.", valueName: "duration"))
    var trialTimeout: String?

    @Option(name: .customLong("deadlock-after"), parsing: .unconditional, help: ArgumentHelp("Report a deadlock or hang when no worker completes an operation for this long (default: the plan's deadlock_after, 2s); at least 1s shorter than the trial timeout, longer than the fuzzer's longest pause.", valueName: "duration"))
    var deadlockAfter: String?

    @Option(help: ArgumentHelp("Thread-fuzzing profile for every trial, overriding the plan: \(FuzzProfile.allCases.map(\.rawValue).joined(separator: ", ")).",
                               valueName: "profile"),
            completion: .list(FuzzProfile.allCases.map(\.rawValue)))
    var fuzz: String?

    @Option(help: ArgumentHelp("Run every experiment under this allocator only: system or jemalloc (jemalloc is loaded with LD_PRELOAD; trials are skipped when it is not installed).", valueName: "name"),
            completion: .list(AllocatorKind.allCases.map(\.rawValue)))
    var allocator: String?

    @Flag(name: .customLong("stop-on-violation"), help: "End each trial at its first violation (find bugs fast; its figures then cover a shorter window).")
    var stopOnViolation = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Trials per cell for every experiment, overriding the plan. Default: the plan's; with --baseline, or for a plan with a `gate` key, experiments that do not set it get what the comparison needs (5, more for many cells).", valueName: "n"))
    var repetitions: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Measured window of every trial, overriding the plan's duration or ops (e.g. 50ms for a quick smoke run of a whole plan; a shorter window finds fewer races).", valueName: "duration"))
    var duration: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Untimed warm-up of every trial before its measured window, overriding the plan's warmup (0s for none: a smoke run of a whole plan that checks verdicts, not figures).", valueName: "duration"))
    var warmup: String?

    @Option(help: ArgumentHelp("Where worker tasks run their jobs, overriding the plan's executor: \(ExecutorChoice.help). Thread workers ignore it.",
                               valueName: "executor"),
            completion: .list(ExecutorChoice.allCases.map(\.rawValue)))
    var executor: String?

    @Option(help: ArgumentHelp("Who picks the next worker, overriding the plan's schedule: free (the OS runs the workers in parallel) or controlled (one thread worker at a time, the seed choosing every switch at every scheduling point, so a failure replays exactly; not for actors, async writes, paced load or litmus tests). replay also takes a recorded schedule (w0:2,w1:3) to follow exactly.",
                               valueName: "mode"),
            completion: .list(ScheduleMode.allCases.map(\.rawValue)))
    var schedule: String?

    @Option(name: .customLong("max-decisions"), parsing: .unconditional, help: ArgumentHelp("End a controlled trial after this many scheduling decisions at the latest, overriding the plan's max_decisions (default \(PlanDefaults.maxDecisions)).", valueName: "n"))
    var maxDecisions: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Run every selected trial as a bounded exhaustive exploration, overriding the plan's explore: every schedule with at most K preemptions, each from a fresh start (a workload's workers run M operations each, default \(ExplorationSettings.defaultOperations); a scenario one round), for at most S seconds (default \(ExplorationSettings.defaultBudgetNs / 1_000_000_000)); pruning=off counts every equivalent schedule too. It makes the trials controlled (thread workers only). With --shard i/n, every trial runs and explores share i of its schedule space (merge combines the shards). K is 0 to \(ExplorationLimits.preemptions.upperBound).",
                               valueName: ExplorationLimits.flagForm))
    var explore: String?

    @Flag(name: .customLong("no-shrink"), help: "Do not shrink a failed controlled trial's schedule (default: shrunk for up to the plan's shrink bound, 5s unless it says otherwise).")
    var noShrink = false

    @Option(name: .customLong("shrink-seconds"), parsing: .unconditional, help: ArgumentHelp("Shrink a failed controlled trial's schedule for at most this many seconds (\(ExplorationLimits.shrinkSeconds.lowerBound) to \(ExplorationLimits.shrinkSeconds.upperBound)), overriding the plan's shrink.", valueName: "n"))
    var shrinkSeconds: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Run every trial for this many operations per worker (a scenario: rounds), overriding the plan's duration or ops; the replay line of a shrunk schedule gives it, so the replay ends where the shrunk run did.", valueName: "n"))
    var ops: Int?

    @Option(name: .customLong("busy-workers"), parsing: .unconditional, help: ArgumentHelp("With --ops under controlled scheduling, let only the first n workers (2: workers 0 and 1), or the listed ones (w1,w3), run operations; the others start and end idle. The replay line of a schedule shrunk to fewer busy workers gives it.", valueName: "n|w1,w3"))
    var busyWorkers: String?

    /// `--busy-workers` read; nil when not given (``validate()`` refuses a bad one).
    var busyWorkerSet: BusyWorkers? { busyWorkers.flatMap { try? BusyWorkers(parsing: $0) } }

    /// `--explore` read; nil when not given (``validate()`` refuses a bad one).
    var exploration: ExplorationSettings? { explore.flatMap { try? ExplorationLimits.parse(flag: $0) } }

    /// `--schedule` as a mode; nil when not given, or when it is a recorded schedule.
    var scheduleMode: ScheduleMode? { schedule.flatMap(ScheduleMode.init(rawValue:)) }

    /// `--schedule` when it is a recorded schedule (`w0:2,w1:3`) rather than a mode.
    var recordedSchedule: String? { scheduleMode == nil ? schedule : nil }

    func validate() throws {
        if let explore {
            do { _ = try ExplorationLimits.parse(flag: explore) } catch { throw ValidationError("--explore: \(error.description)") }
            if scheduleMode == .free {
                throw ValidationError("--explore enumerates a controlled trial's schedules, so it cannot run with --schedule free: leave --schedule out")
            }
            if recordedSchedule != nil {
                throw ValidationError("--explore and a recorded --schedule exclude each other: a recorded schedule is followed once; leave --explore out to replay it")
            }
        }
        if noShrink, shrinkSeconds != nil {
            throw ValidationError("--no-shrink and --shrink-seconds exclude each other: give one")
        }
        if let shrinkSeconds, !ExplorationLimits.shrinkSeconds.contains(shrinkSeconds) {
            throw ValidationError("--shrink-seconds expects a whole number of seconds from \(ExplorationLimits.shrinkSeconds.lowerBound) to "
                                  + "\(ExplorationLimits.shrinkSeconds.upperBound), got \(shrinkSeconds) (--no-shrink turns shrinking off)")
        }
        if let busyWorkers {
            do { _ = try BusyWorkers(parsing: busyWorkers) } catch { throw ValidationError("--busy-workers \(error.description)") }
        }
        if busyWorkers != nil && ops == nil {
            throw ValidationError("--busy-workers needs --ops: it leaves workers idle in a run that ends by a count of operations")
        }
        if let ops {
            guard ops >= 1 else { throw ValidationError("--ops expects a positive number of operations per worker, got \(ops)") }
            if duration != nil { throw ValidationError("--ops and --duration exclude each other: a trial ends by a count or by time, not both") }
        }
        if let maxDecisions, !(1...ControlledScheduleLimits.mostDecisions).contains(maxDecisions) {
            throw ValidationError("--max-decisions expects a number from 1 to \(ControlledScheduleLimits.mostDecisions), got \(maxDecisions)")
        }
        if let recordedSchedule {
            do {
                _ = try ScheduleEncoding.decode(recordedSchedule)
            } catch {
                let text = recordedSchedule.terminalSafe
                // A word that is not a schedule is most likely a mistyped mode.
                throw ValidationError(recordedSchedule.first == "w"
                    ? "--schedule: \(error.description)"
                    : "--schedule expects free or controlled (replay also takes a recorded schedule such as w0:2,w1:3), got '\(text)'")
            }
        }
        if let repetitions, !(1...100_000).contains(repetitions) {
            throw ValidationError("--repetitions expects a number from 1 to 100000, got \(repetitions)")
        }
        if let allocator, AllocatorKind(rawValue: allocator) == nil {
            throw ValidationError("--allocator expects system or jemalloc, got '\(allocator.terminalSafe)'")
        }
        if let executor, ExecutorChoice(rawValue: executor) == nil {
            throw ValidationError("--executor expects global, harness or deterministic, got '\(executor.terminalSafe)'")
        }
        if let fuzz, FuzzProfile(rawValue: fuzz) == nil {
            throw ValidationError("--fuzz expects one of \(FuzzProfile.allCases.map(\.rawValue).joined(separator: ", ")), got '\(fuzz.terminalSafe)'")
        }
        for (name, value) in [("--trial-timeout", trialTimeout), ("--deadlock-after", deadlockAfter), ("--duration", duration)] {
            guard let value else { continue }
            switch Quantities.boundedNanoseconds(from: value) {
            case .success(let ns) where ns > 0: break
            case .failure(.tooLong(let message)): throw ValidationError("\(name): \(message)")
            default: throw ValidationError("\(name) expects a positive duration such as 30s or 500ms, got '\(value.terminalSafe)'")
            }
        }
        if let warmup {
            switch Quantities.boundedNanoseconds(from: warmup) {
            case .success: break
            case .failure(.tooLong(let message)): throw ValidationError("--warmup: \(message)")
            default: throw ValidationError("--warmup expects a duration such as 50ms, or 0s for none, got '\(warmup.terminalSafe)'")
            }
        }
    }

    /// A usage error unless `seed` (`--seed`) is one a plan may give: below
    /// 2^53, so that it survives a JSON reader that reads numbers as doubles.
    static func checkSeed(_ seed: UInt64?) throws {
        if let seed, seed >= TrialMatrix.seedLimit {
            throw ValidationError("--seed expects a non-negative integer below 2^53 (\(TrialMatrix.seedLimit)), as a plan's seed does, got \(seed)")
        }
    }

    /// Sets these overrides in `options`.
    func apply(to options: inout RunOptions) {
        options.timeoutNs = trialTimeout.flatMap(Quantities.nanoseconds(from:))
        options.deadlockAfterNs = deadlockAfter.flatMap(Quantities.nanoseconds(from:))
        options.fuzz = fuzz.flatMap(FuzzProfile.init(rawValue:))
        options.allocator = allocator.flatMap(AllocatorKind.init(rawValue:))
        options.stopOnViolation = stopOnViolation
        options.repetitions = repetitions
        options.durationNs = duration.flatMap(Quantities.nanoseconds(from:))
        options.warmupNs = warmup.flatMap(Quantities.nanoseconds(from:))
        options.executor = executor.flatMap(ExecutorChoice.init(rawValue:))
        options.schedule = scheduleMode
        options.maxDecisions = maxDecisions
        options.forcedSchedule = recordedSchedule
        options.exploration = exploration
        options.shrinkNs = noShrink ? 0 : shrinkSeconds.map { UInt64($0) * 1_000_000_000 }
        options.opsPerThread = ops
        options.busyWorkers = busyWorkerSet
    }

    /// A usage error when `--schedule controlled` (or a recorded schedule)
    /// would apply to a selected trial that a controlled schedule cannot run:
    /// an actor's, a paced one, a litmus test.
    func checkSchedule(_ selected: [TrialSpec], runner: PlanRunner) throws {
        if let problem = runner.scheduleProblem(selected) { throw CommandError.usage(problem) }
    }

    /// A usage error when the watchdog's limit does not fit a selected trial
    /// that an override changed: it must end early enough before the trial's
    /// timeout for the watchdog to report a stall (else a deadlock ends as a
    /// bare timeout), and last longer than the fuzzer's longest pause (else
    /// the fuzzer's own pause is reported as a hang). The plan loader checks
    /// the plan's own values.
    func checkWatchdog(_ selected: [TrialSpec]) throws {
        let format = { (ns: Int) in Quantities.format(nanoseconds: UInt64(ns)) }
        let limit = { (trial: TrialSpec) in
            self.deadlockAfter.map { "--deadlock-after \($0)" } ?? "deadlock_after \(format(trial.deadlockAfterNanoseconds))"
        }
        if trialTimeout != nil || deadlockAfter != nil,
           let trial = selected.first(where: { !WatchdogTiming.fits(stallAfterNs: UInt64($0.deadlockAfterNanoseconds), timeoutNs: UInt64($0.timeoutNanoseconds)) }) {
            let margin = WatchdogTiming.reportMarginNs(timeoutNs: UInt64(trial.timeoutNanoseconds))
            throw CommandError.usage(
                "the watchdog's limit (\(limit(trial))) must be shorter than the trial timeout "
                + "(\(trialTimeout.map { "--trial-timeout \($0)" } ?? "\(format(trial.timeoutNanoseconds)) for \(trial.id)")) "
                + "by at least \(Quantities.format(nanoseconds: margin)), the time the watchdog keeps to report a stall: "
                + "otherwise a deadlock ends as a bare timeout, without the watchdog's report")
        }
        if fuzz != nil || deadlockAfter != nil,
           let (trial, pause) = selected.lazy.compactMap({ t in t.fuzz.longestPause.flatMap { UInt64(t.deadlockAfterNanoseconds) <= $0.ns ? (t, $0) : nil } }).first {
            let profile = fuzz.map { "--fuzz \($0)" } ?? "fuzz profile \(trial.fuzz.profile.rawValue) of \(trial.id)"
            throw CommandError.usage(
                "the watchdog's limit (\(limit(trial))) must be longer than the fuzzer's longest pause "
                + "(\(Quantities.format(nanoseconds: pause.ns)), \(pause.key) of \(profile)): a worker the fuzzer holds would look stalled, "
                + "and correct code would be reported as a hang; give a longer --deadlock-after")
        }
    }
}
