import Synchronization

/// Runs one trial of one workload under one strategy, in this process.
///
/// The engine knows workloads and strategies only through their protocols. The
/// worker loop is specialised for the workload's state type (its metadata is
/// static, so nothing is looked up per operation) and calls the strategy through
/// its protocol witness: one indirect call per critical section.
package enum TrialEngine {
    /// Runs the trial and merges the workers' reports.
    ///
    /// A watchdog watches the workers; if none completes an operation for
    /// `settings.stallAfterNs` it calls `onStall` with where every worker is.
    /// `onStall` must end the trial (the stuck workers never return): the child
    /// side writes a `deadlock`/`hang` record and waits to be killed.
    public static func run<W: Workload>(
        _ workload: W, strategy: StrategyInstance, settings: TrialSettings,
        onStall: @escaping @Sendable (StallReport) -> Void
    ) throws(EngineError) -> EngineOutput {
        let state = workload.makeState(threads: settings.threads)
        let makeOperations: @Sendable () -> [StressOperation<W.State>]
        if strategy.descriptor.lockFree {
            guard workload.lockFreeOperations() != nil else {
                throw EngineError("workload \(W.descriptor.name) has no lock-free form for strategy \(strategy.descriptor.name)")
            }
            makeOperations = { workload.lockFreeOperations() ?? [] }
        } else {
            makeOperations = { workload.operations() }
        }
        let operations = makeOperations()
        guard !operations.isEmpty else { throw EngineError("workload \(W.descriptor.name) has no operations") }
        guard !operations.contains(where: { $0.steps.isEmpty }) else {
            throw EngineError("workload \(W.descriptor.name) has an operation with no steps")
        }
        return try runCore(
            state: state, operations: operations, makeOperations: makeOperations, strategy: strategy, settings: settings,
            onStall: onStall, rounds: nil, describe: { workload.describe(state) }
        ) { reports, window, schedule, settings in
            merge(reports, workload: workload, state: state, operations: operations, settings: settings,
                  window: window, schedule: schedule)
        }
    }

    /// Runs a trial of a scenario: role `i` on worker `i`, in rounds, every
    /// round's outcome counted and graded. `settings.threads` must be the
    /// scenario's role count (the plan loader sees to it).
    public static func run<S: Scenario>(
        _ given: S, strategy: StrategyInstance, settings: TrialSettings,
        onStall: @escaping @Sendable (StallReport) -> Void
    ) throws(EngineError) -> EngineOutput {
        // A linearizability check starts afresh for each run (a schedule
        // search runs one scenario value many times), its scenarios drawn
        // from this run's seed.
        let recording = (given as? any RecordingScenario).map { fresh($0, seed: settings.seed) }
        let scenario = recording as? S ?? given
        let roles = scenario.roles()
        let name = S.descriptor.name
        guard roles.count >= 2 else { throw EngineError("scenario \(name) has \(roles.count) role(s); a scenario needs two or more") }
        guard !roles.contains(where: { $0.steps.isEmpty }) else { throw EngineError("scenario \(name) has a role with no steps") }
        guard settings.threads == roles.count else {
            throw EngineError("scenario \(name) has \(roles.count) roles, so its trials have \(roles.count) workers, not \(settings.threads)")
        }
        guard !strategy.descriptor.lockFree else {
            throw EngineError("scenario \(name) has no lock-free form for strategy \(strategy.descriptor.name)")
        }
        if settings.schedule == .controlled && S.descriptor.needsWeakMemory {
            throw EngineError("scenario \(name) is a litmus test of the memory model, and a controlled trial is sequentially "
                              + "consistent (one worker at a time), so its weak outcomes cannot occur under control: run it free")
        }
        if let role = roles.first(where: { $0.workerSteps == nil }) {
            throw EngineError("scenario \(name): role \(role.name) runs on the main thread, so its steps cannot wait "
                              + "(waitUntil) or await: the main thread runs each step's body while the role's worker waits")
        }
        if settings.schedule == .controlled, let absent = ControlledTrial.mainThreadAbsence,
           let role = roles.first(where: \.onMainThread) {
            throw EngineError("scenario \(name): role \(role.name) runs on the main thread, which takes part in a controlled "
                              + "trial only where it serves the main queue itself: a trial process of the command line, or a "
                              + "run started on the main thread (an XCTest method, in process or isolated; Swift Testing runs "
                              + "tests off the main thread, and on Linux drains the main queue off it too); here \(absent), "
                              + "so the role's steps would run outside the schedule: run it from an XCTest method or a plan, "
                              + "or run it free")
        }
        let makeOperations: @Sendable () -> [StressOperation<S.State>] = {
            scenario.roles().map { StressOperation($0.name, weight: 1, steps: $0.workerSteps ?? $0.steps) }
        }
        let operations = makeOperations()
        // The arbiter gets a site of its own after the roles' steps, so a stall
        // report can say a worker is arbitrating.
        let arbiterSite = operations.reduce(0) { $0 + $1.steps.count }
        return try runCore(
            state: scenario.makeState(), operations: operations, makeOperations: makeOperations, strategy: strategy,
            settings: settings, onStall: onStall,
            rounds: { board, fuzz, settings in
                RoundProgram(
                    roles: roles.count, makeState: { scenario.makeState() },
                    arbiter: { scenario.arbiter(unsafeDowncast($0 as AnyObject, to: S.State.self)) },
                    reset: { scenario.reset(unsafeDowncast($0 as AnyObject, to: S.State.self)) },
                    grade: { scenario.grade($0) }, arbiterSite: arbiterSite, settings: settings, fuzz: fuzz,
                    strideLimit: S.descriptor.maxStride)
            }
        ) { reports, window, schedule, settings in
            var output = merge(reports, operations: operations, settings: settings, window: window, schedule: schedule,
                               finalCheck: { _ in [] }, metrics: [:])
            // Rounds are not timed one by one: no latency, no timing to report.
            output.measurement.timing = nil
            let outcomes = OutcomeTable.mergeAndFree(reports.compactMap(\.outcomes)) { scenario.grade($0) }
            let elapsed = Double(output.measurement.elapsedNanoseconds) / 1e9
            output.rounds = ScenarioRounds(
                rounds: outcomes.rounds, measuredRounds: outcomes.measured,
                roundsPerSecond: elapsed > 0 ? Double(outcomes.measured) / elapsed : 0, outcomes: outcomes.outcomes)
            output.linearizability = recording?.linearizabilityRecord()
            return output
        }
    }

    /// `scenario` as a fresh run with `seed` begins it.
    private static func fresh<R: RecordingScenario>(_ scenario: R, seed: UInt64) -> any RecordingScenario {
        scenario.beginning(seed: seed)
    }

    /// What both kinds of trial share: the clock, the board and its
    /// watchdog, the fuzzer's shared part, the driver for the strategy, and
    /// what the workers left, which `merge` turns into the output.
    private static func runCore<State: AnyObject & Sendable>(
        state: State, operations: [StressOperation<State>], makeOperations: @escaping @Sendable () -> [StressOperation<State>],
        strategy: StrategyInstance, settings: TrialSettings, onStall: @escaping @Sendable (StallReport) -> Void,
        rounds makeRounds: ((SiteBoard, (any FuzzCoordinator)?, TrialSettings) -> RoundProgram)?,
        describe: (() -> String?)? = nil,
        merge: ([WorkerReport], UsageWindow, PacingSchedule, TrialSettings) -> EngineOutput
    ) throws(EngineError) -> EngineOutput {
        // Resolve the clock (and measure what a read costs) first: calibrating
        // the TSC takes about 5 ms, which must not count toward the time to the
        // first violation, and `auto` sampling needs the read cost.
        _ = TimeSource.resolve(settings.timing.clock).readCost
        var settings = settings
        let awaits = operations.contains { $0.steps.contains { $0.access == .awaiting } }
        let executor = ExecutorChoice.resolved(settings.executor, awaits: awaits, tasks: strategy.descriptor.execution == .tasks)
        // Deterministic: nothing may depend on the wall clock before the
        // measured window (a warm-up's length in operations would).
        if executor == .deterministic { settings.warmupNs = 0 }
        let controlling = settings.schedule == .controlled
        if controlling {
            if let refusal = ControlledTrial.refusal(operations, strategy: strategy.descriptor, settings: settings, awaits: awaits) {
                throw refusal
            }
            // One worker at a time from the first operation: a warm-up would
            // only be more decisions.
            settings.warmupNs = 0
        }
        // A policy's coordinator may calibrate itself from the warm-up (soft
        // PCT counts the fuzz points to spread its change points over): give
        // it one when the plan has none (not for a scenario's per-round PCT,
        // which learns from its rounds).
        let policy = SchedulingPolicies.policy(for: settings.fuzz.profile)
        let perRoundPCT = makeRounds != nil && settings.fuzz.pctScope != .trial
        let calibrationNs = policy.calibrationWarmupNs(for: settings.fuzz)
        if settings.warmupNs < calibrationNs && !perRoundPCT && executor != .deterministic && !controlling {
            settings.warmupNs = calibrationNs
        }
        let trialStart = MonotonicClock.now()
        let board = SiteBoard(workers: settings.threads, operations: operations,
                              extraLabels: makeRounds == nil ? [] : ["arbiter/arbitrate"],
                              roles: makeRounds == nil ? nil : operations.map(\.name))
        board.installCrashReporter()
        // Harness-aware primitives on threads that are not workers (the main
        // thread, dispatch threads) find the trial through these.
        RunningTrial.set(board)
        MainThreadService.attach(board)
        Participation.connectInterposer()
        defer {
            MainThreadService.detach(board)
            RunningTrial.set(nil)
        }
        // A stall the watchdog finds in a controlled trial (code that blocked
        // outside the model) carries the decisions made up to it.
        let scheduled = Mutex<ControlledScheduler?>(nil)
        let watchdog = Watchdog(board: board, stallAfterNs: settings.stallAfterNs, strategy: strategy.descriptor,
                                latestReportNs: settings.latestStallReportNs) { report in
            var report = report
            if report.schedule == nil, let controlled = scheduled.withLockSeen({ $0 }) { report.schedule = controlled.record() }
            onStall(report)
        }
        let watching = watchdog.start()
        let controlled = controlling
            ? ControlledTrial.scheduler(settings, policy: policy) { watchdog.reportControlledDeadlock(stuck: $0, schedule: $1, detail: $2) }
            : nil
        scheduled.withLockSeen { $0 = controlled }
        // The main thread's harness-aware code finds its place in the
        // schedule through this, while the trial runs.
        MainThreadControl.set(controlled)
        defer { MainThreadControl.set(nil) }
        controlled?.onLivelock = { watchdog.reportControlledLivelock(worker: $0, points: $1, schedule: $2, detail: $3) }
        controlled?.describeState = describe
        controlled?.names = TraceNames(operations: operations.map { ($0.name, $0.steps.map(\.name)) })
        let fuzzShared = controlled ?? policy.makeCoordinator(board: board, settings: settings.fuzz, seed: settings.seed)
        let rounds = makeRounds?(board, fuzzShared, settings)
        var reports: [WorkerReport] = []
        let window = UsageWindow()
        let schedule = PacingSchedule()
        var deferred = ViolationReport.none
        var deferredFirst: UInt64?
        var executorStats: ExecutorStats?
        // Tasks drive isolating strategies, and any strategy of a program with an async step.
        let onTasks: (any IsolatingStrategy)?, onThreads: (any BlockingStrategy)?
        switch strategy {
        case .blocking(let s): (onTasks, onThreads) = awaits ? (BlockingUnderTasks(s), nil) : (nil, s)
        case .isolating(let s): (onTasks, onThreads) = (s, nil)
        }
        if let onTasks {
            if let error = TaskDriver.refusal(operations, strategy: strategy.descriptor.name, settings: settings) {
                watchdog.stop(watching)
                throw error
            }
            (reports, executorStats) = TaskDriver.run(
                state: state, makeOperations: makeOperations, strategy: onTasks, board: board, fuzz: fuzzShared,
                window: window, settings: settings, rounds: rounds, executor: executor)
        } else if let s = onThreads {
            let accesses = operations.flatMap { $0.steps.map(\.access) }
            let access = BlockingAccess(s, labels: board.labels, resources: (accesses.flatMap(\.resources).max() ?? 0) + 1,
                                        extendedSteps: accesses.contains(where: \.isExtended), waits: accesses.contains(where: \.waits),
                                        controlled: controlled)
            if accesses.contains(where: \.holdsAcrossSteps) && access.holding == nil {
                watchdog.stop(watching)
                throw EngineError("strategy \(strategy.descriptor.name) cannot hold a resource across steps (its access is one block, not a lock and an unlock), "
                                  + "and this workload has hold/release steps")
            }
            // A controlled trial's holder that blocks where the model cannot
            // see is noticed, and the others go on (control: partial).
            let monitor = controlled.map { EscapeMonitor(scheduler: $0, board: board) }
            let monitoring = monitor?.start()
            defer { monitor?.stop(monitoring) }
            do {
                reports = try ThreadDriver.run(state: state, makeOperations: makeOperations, access: access, board: board, fuzz: fuzzShared,
                                               window: window, schedule: schedule, settings: settings, rounds: rounds,
                                               controlled: controlled)
                // The main-queue blocks the workers submitted are steps of
                // the trial's schedule: the record waits for them.
                controlled?.awaitMainIdle()
            } catch {
                watchdog.stop(watching)
                throw error
            }
            deferred = access.deferredWrites?.report ?? .none
            deferredFirst = access.deferredWrites?.firstAt
        }
        watchdog.stop(watching)
        var output = merge(reports, window, schedule, settings)
        output.executor = executorStats
        output.schedule = controlled?.record() ?? .free
        if let controlled {
            if output.violations.count > 0 { output.trace = controlled.traceEvents() }
            output.choices = controlled.choices
            output.preemptions = controlled.preemptions
            output.traceEventCount = controlled.trace.count
        }
        output.violations.count += deferred.count
        output.violations.samples += deferred.samples
        if let queued = controlled?.queueViolations.withLockSeen({ $0 }) {
            output.violations.count += queued.count
            output.violations.samples += queued.samples
        }
        let firsts = reports.compactMap(\.firstViolationAt) + [deferredFirst].compactMap { $0 }
        output.violations.firstAfterNanoseconds = firsts.min().map { Int($0 &- trialStart) }
        return output
    }
}
