import Foundation
import Synchronization
import StressCore

/// Runs a plan's trials one after another and collects a record for each.
///
/// Each trial runs in its own child process by default: a trap or a hang in one
/// trial becomes that trial's record (`crashed`, `timeout`) and the run goes on.
public struct PlanRunner: Sendable {
    /// The registry trials are looked up in (for in-process runs; a child looks
    /// them up in its own binary's registry).
    public let registry: StressRegistry
    /// How to run: isolation, overrides of the plan, outputs.
    public let options: RunOptions

    /// A runner of plans whose workloads, scenarios and strategies `registry`
    /// holds, run as `options` says.
    ///
    /// - Parameters:
    ///   - registry: The workloads, scenarios and strategies plans may name.
    ///   - options: How to run.
    public init(registry: StressRegistry, options: RunOptions = RunOptions()) {
        self.registry = registry
        self.options = options
    }

    /// The whole matrix of `plan` under these options (before the shard and `only`).
    package func matrix(of plan: Plan) -> [TrialSpec] {
        TrialMatrix.expand(overridden(plan))
    }

    /// Why `plan`, with these options' overrides (`--repetitions`,
    /// `--allocator`), has too many trials to run; nil when it has not.
    package func sizeProblem(of plan: Plan) -> String? {
        TrialMatrix.sizeProblem(overridden(plan))
    }

    /// Why `--warmup 0s` cannot apply to `plan`, nil when it can: an
    /// experiment paced at a share of its capacity measures that capacity
    /// during the warm-up (the plan loader refuses such an experiment with
    /// `warmup: 0` for the same reason), and without one would pace at
    /// nothing.
    package func warmupProblem(of plan: Plan) -> String? {
        guard options.warmupNs == 0 else { return nil }
        for e in plan.experiments {
            if case .fractionOfCapacity? = e.load.rate {
                return "--warmup 0s: experiment '\(e.name)' paces its load at a share of its capacity, which is measured during "
                    + "the warm-up; give --warmup a duration (e.g. 200ms), or leave it out"
            }
        }
        return nil
    }

    /// `plan` with the options that change which trials exist applied.
    private func overridden(_ plan: Plan) -> Plan {
        var plan = plan
        for i in plan.experiments.indices {
            if let allocator = options.allocator { plan.experiments[i].allocators = [allocator] }
            if let repetitions = options.repetitions { plan.experiments[i].repetitions = repetitions }
            if let d = options.durationNs { plan.experiments[i].stop = .duration(nanoseconds: d) }
            if let w = options.warmupNs { plan.experiments[i].warmupNs = w }
            if let n = options.opsPerThread { plan.experiments[i].stop = .operations(perThread: n) }
        }
        return plan
    }

    /// The trials of `plan` this runner will run, with option overrides applied.
    ///
    /// `--shard i/n` takes slice i of the matrix, unless every trial
    /// explores (``schedulesSharded(_:)``): then every trial runs, each
    /// exploring share i of its own schedule space.
    package func selectedTrials(of plan: Plan) -> [TrialSpec] {
        selectedTrials(from: matrix(of: plan))
    }

    /// ``selectedTrials(of:)`` of the plan whose matrix is `matrix`.
    func selectedTrials(from matrix: [TrialSpec]) -> [TrialSpec] {
        let splitsSchedules = schedulesSharded(matrix)
        let sliced = splitsSchedules ? matrix : (options.shard.map { $0.select(matrix) } ?? matrix)
        return sliced.filter(isSelected).map { spec in
            var s = spec
            if let seed = options.seed { s.seed = seed }
            if let t = options.timeoutNs { s.timeoutNanoseconds = Int(clamping: t) }
            if let d = options.deadlockAfterNs { s.deadlockAfterNanoseconds = Int(clamping: d) }
            if let f = options.fuzz { s.fuzz = FuzzSettings(f).forRepetition(s.repetition) }
            if options.stopOnViolation { s.stopOnViolation = true }
            if let e = options.executor { s.executor = e }
            if let mode = options.schedule { s.schedule = mode }
            if let exploration = options.exploration {
                s.schedule = .controlled
                s.exploration = exploration
            }
            if let forced = options.forcedSchedule {
                s.schedule = .controlled
                s.forcedSchedule = forced
                // A recorded schedule is followed once, not explored.
                s.exploration = nil
            }
            if splitsSchedules, let shard = options.shard, s.exploration != nil {
                s.exploration?.shard = ExplorationSettings.Shard(index: shard.index, count: shard.count)
            }
            if let n = options.maxDecisions, s.schedule == .controlled { s.maxDecisions = n }
            if let n = options.shrinkNs { s.shrinkNanoseconds = Int(clamping: n) }
            if let busy = options.busyWorkers { s.busyWorkers = busy.within(threads: s.threads) }
            // A trial made controlled or explored here runs for its
            // decisions, its shrinking or its exploration, not its window:
            // its timeout grows to cover them, as a plan's own gets (never
            // shrinks, never past an explicit --trial-timeout).
            if options.timeoutNs == nil, let needed = Self.controlledTimeout(s) {
                s.timeoutNanoseconds = max(s.timeoutNanoseconds, Int(clamping: needed))
            }
            return s
        }
    }

    private func isSelected(_ spec: TrialSpec) -> Bool {
        RunReport.isSelected(spec.id, by: options.only)
    }

    /// Runs every selected trial of `plan`. `progress` is called before each trial
    /// starts (with nil result) and after it ends.
    ///
    /// When the run stops early (a signal, `failFast`), the report says why in
    /// ``RunReport/stop`` and every trial it did not start is a `skipped` record
    /// saying so (also appended to the stream).
    ///
    /// After the trials, each free-running failure that control can run is
    /// hunted under control for its experiment's `hunt` (or
    /// ``RunOptions/huntNs``), when that is not 0 (``huntBudgetNs(for:in:)``);
    /// `hunting` is called before each hunt with the trial's id and budget.
    ///
    /// Throws only when the stream file cannot be created; once trials run,
    /// every outcome is a record.
    package func run(
        _ plan: Plan, progress: (@Sendable (_ index: Int, _ total: Int, TrialSpec, TrialResult?) -> Void)? = nil,
        hunting: ((_ id: String, _ budgetNs: UInt64) -> Void)? = nil
    ) throws(RunError) -> RunReport {
        let (report, tail) = try runLeavingTheStreamTail(plan, progress: progress, hunting: hunting)
        tail?.wait()
        return report
    }

    /// ``run(_:progress:)``, except that when the run stops early, the
    /// skipped records may still be on their way to the stream when it
    /// returns, written by a thread of their own: the caller writes its
    /// other files meanwhile (a stop must be prompt, and a machine has more
    /// than one core), then calls the tail's ``StreamTail/wait()`` before it
    /// exits.
    package func runLeavingTheStreamTail(
        _ plan: Plan, progress: (@Sendable (_ index: Int, _ total: Int, TrialSpec, TrialResult?) -> Void)? = nil,
        hunting: ((_ id: String, _ budgetNs: UInt64) -> Void)? = nil
    ) throws(RunError) -> (RunReport, StreamTail?) {
        if let problem = options.overrideProblem ?? warmupProblem(of: plan) ?? sizeProblem(of: plan) { throw RunError(description: problem) }
        let started = Date()
        // The matrix once, at the start: a stop must not expand it again to count it.
        let matrix = matrix(of: plan)
        let trials = selectedTrials(from: matrix)
        if let problem = scheduleProblem(trials) { throw RunError(description: problem) }
        if options.handleInterrupts { Interruption.install() }
        let stream = try openStream()
        var results: [TrialResult] = []
        results.reserveCapacity(trials.count)  // a stop appends all the rest at once
        var stop: RunStop?
        for (i, spec) in trials.enumerated() {
            if let signal = interruption() {
                stop = RunStop(reason: .signal, signal: signal)
                break
            }
            progress?(i, trials.count, spec, nil)
            let started = MonotonicClock.now()
            var result = runTrial(spec)
            result.wallNanoseconds = Int(clamping: MonotonicClock.now() &- started)
            // A trial whose process died before it reported (a crash, a
            // timeout) still says how it was scheduled; its decisions are lost.
            if result.schedule == nil { result.schedule = ScheduleRecord(mode: spec.schedule) }
            if result.expectation != .passed { result.rerunCommand = rerunCommand(for: result.trial, planFile: plan.file) }
            result.huntCommand = huntCommand(for: result, planFile: plan.file)
            results.append(result)
            stream?.append(result)
            progress?(i, trials.count, spec, result)
            if let signal = interruption() {
                stop = RunStop(reason: .signal, signal: signal, trial: result.outcome == .skipped ? spec.id : nil)
            } else if options.failFast && result.expectation.isFailure {
                stop = RunStop(reason: .failFast, trial: spec.id)
            }
            if stop != nil { break }
        }
        var tail: StreamTail?
        if let stop {
            // One rerun command builder and one failure for them all: a stop
            // must stay prompt however many trials the plan has left.
            let rerun = options.rerun
            let failure = FailureReport(message: stop.notRunMessage)
            // Made in place in the results (one copy of each record, not two),
            // and streamed from there.
            let first = results.count
            results.append(contentsOf: trials.dropFirst(first).lazy.map { spec in
                var skipped = TrialResult.failed(spec, .skipped, failure)
                skipped.rerunCommand = rerun.trial(spec, planFile: plan.file)
                return skipped
            })
            // Written a chunk at a time, and not flushed: a stop must stay
            // prompt however many trials the plan has left.
            tail = stream.map { StreamTail(writing: results[first...], to: $0) }
        }
        var report = RunReport(plan: plan.name, planFile: plan.file, startedAt: started, finishedAt: Date(), stop: stop, trials: results)
        report.rerun = options.rerun
        report.shard = options.shard
        report.matrixTrials = matrix.count
        if options.allowSkipped { report.skipsAllowed = true }
        if report.stop?.reason != .signal {
            // A hunt may follow, which appends to the stream: the tail is
            // written first (a signal's stop is never hunted).
            tail?.wait()
            tail = nil
            hunt(&report, budgetNs: { huntBudgetNs(for: $0, in: plan) }, stream: stream, progress: hunting)
        }
        return (report, tail)
    }

    /// The NDJSON stream, when asked for. A signal that arrives while it waits
    /// for a FIFO's reader ends the wait: the run then has no stream and stops
    /// before its first trial, as an interrupted run, rather than failing.
    private func openStream() throws(RunError) -> RecordStream? {
        guard let path = options.streamPath else { return nil }
        do throws(RunError) {
            return try RecordStream(path: path, signals: { Interruption.count })
        } catch where options.handleInterrupts && Interruption.requested {
            return nil
        }
    }

    /// The name of the signal that asked this run to stop, when it handles them.
    func interruption() -> String? {
        guard options.handleInterrupts, let signal = Interruption.signal else { return nil }
        return ChildProcess.signalName(signal)
    }

    /// The command that reruns exactly `trial`, with this run's overrides.
    func rerunCommand(for trial: TrialSpec, planFile: String) -> String {
        options.rerun.trial(trial, planFile: planFile)
    }

    /// Runs one trial as the options say and returns its record, whatever happens
    /// to the trial.
    package func runTrial(_ spec: TrialSpec) -> TrialResult {
        var preload: [String] = []
        if spec.interpose == true {
            guard case .childProcess(let executable, _) = options.isolation else {
                return .failed(spec, .skipped, FailureReport(
                    message: "interpose: true trials run in a child process with LD_PRELOAD; this run is in-process",
                    missing: "a child process"))
            }
            guard let library = Interposer.libraryPath(besides: executable) else {
                return .failed(spec, .skipped, FailureReport(message: Interposer.missingMessage(besides: executable), missing: "the interposer"))
            }
            preload.append(library)
        }
        if spec.allocator == .jemalloc {
            guard case .childProcess = options.isolation else {
                return .failed(spec, .skipped, FailureReport(
                    message: "jemalloc trials run in a child process with LD_PRELOAD; this run is in-process",
                    missing: "a child process"))
            }
            guard let library = Jemalloc.libraryPath else {
                return .failed(spec, .skipped, FailureReport(
                    message: Jemalloc.missingMessage,
                    missing: "jemalloc"))
            }
            preload.append(library)
        }
        switch options.isolation {
        case .inProcess:
            return runHere(spec)
        case .childProcess(let executable, let arguments):
            return runInChild(spec, executable: executable, arguments: arguments, preload: preload)
        }
    }

    /// Runs `spec` in this process. When this run handles interrupts, Ctrl-C
    /// ends the running trial (as it ends a child process), and the trial is
    /// then recorded `skipped`: its figures cover a cut-short window.
    private func runHere(_ spec: TrialSpec) -> TrialResult {
        // In a ThreadSanitizer build the trial's reports go to a log of its
        // own, read back as its data races (TSan reports one race once per
        // process: a later trial in this process that races the same way is
        // not told; a child process per trial is).
        let raceLog = ThreadSanitizer.isActive ? TrialRaceLog.make() : nil
        raceLog?.redirectThisProcess()
        // On the main thread, the trial runs on a thread of its own while the
        // main thread serves the main queue (MainThreadService).
        var result = MainThreadService.run { [self] in runHereServed(spec) }
        if let raceLog {
            raceLog.restoreThisProcess()
            result.record(dataRaces: raceLog.collect())
        }
        return result
    }

    private func runHereServed(_ spec: TrialSpec) -> TrialResult {
        guard options.handleInterrupts else { return LocalTrial.run(spec, registry: registry) }
        let cut = Mutex(false)
        var result = LocalTrial.run(spec, registry: registry, stopRequested: {
            guard Interruption.requested else { return false }
            cut.withLock { $0 = true }
            return true
        })
        if cut.withLock({ $0 }) {
            let signal = Interruption.signal.map(ChildProcess.signalName) ?? "a signal"
            result.outcome = .skipped
            result.measurement = nil
            result.failure = FailureReport(message: "interrupted by \(signal) before it finished; stopped early"
                                           + (result.violations.count > 0 ? " (the violations it saw are kept)" : ""))
        }
        return result
    }

    private func runInChild(_ spec: TrialSpec, executable: String, arguments: [String], preload: [String]) -> TrialResult {
        let input: [UInt8]
        do {
            input = Array(try ResultCoding.encoder(pretty: false).encode(spec))
        } catch {
            return .failed(spec, .error, FailureReport(message: "cannot encode the trial spec: \(error)"))
        }
        let capture: ChildCapture
        let inherited = ProcessInfo.processInfo.environment
        var environment = options.childEnvironment
        // The runtime's backtracer can take seconds per crash; the trap message
        // itself is printed without it. A user who sets SWIFT_BACKTRACE gets it:
        // the crash handler hands the signal on after its own report.
        if inherited["SWIFT_BACKTRACE"] == nil && environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        environment[TrialChild.parentVariable] = String(getpid())
        if !preload.isEmpty {
            environment["LD_PRELOAD"] = (preload + (inherited["LD_PRELOAD"].map { [$0] } ?? [])).joined(separator: ":")
        }
        // A ThreadSanitizer build's trial process reports its races to a log
        // of the trial's own, read back below (the trial process is this
        // binary, so it is a TSan build too).
        let raceLog = ThreadSanitizer.isActive ? TrialRaceLog.make() : nil
        if let raceLog { environment["TSAN_OPTIONS"] = raceLog.options(inherited: environment["TSAN_OPTIONS"] ?? inherited["TSAN_OPTIONS"]) }
        // A controlled trial's decisions go to a journal that outlives its
        // process, so that a crash keeps them (see PlanRunner+CrashedSchedule).
        let journal = spec.schedule == .controlled ? CrashJournal.makeFile() : nil
        defer { if let journal { close(journal) } }
        if journal != nil { environment[CrashJournal.descriptorVariable] = String(CrashJournal.childDescriptor) }
        do {
            capture = try ChildProcess.run(
                executable: executable, arguments: arguments,
                environment: environment,
                input: input, timeoutNs: UInt64(spec.timeoutNanoseconds), journal: journal
            )
        } catch {
            raceLog?.remove()
            return .failed(spec, .error, FailureReport(message: error.description))
        }
        var result = Self.interpret(capture, spec: spec)
            .explainingSilentTrap(strategy: registry.strategy(for: spec)?.descriptor)
            .namingCrashCause()
        if let raceLog { result.record(dataRaces: raceLog.collect()) }
        if let journal, result.outcome == .crashed || result.outcome == .timeout, result.schedule == nil {
            result = Self.recoveringSchedule(of: result, journal: journal, capture: capture,
                                             child: (executable, arguments, environment))
        }
        return result
    }
}
