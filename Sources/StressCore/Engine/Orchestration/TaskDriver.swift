import Dispatch
import Synchronization

/// Drives a trial with Swift tasks, for isolating strategies (actors) and for
/// programs with `async` steps: the same phases and the same closed loop as
/// ``ThreadDriver``, with `await` where a thread would block. The tasks run on
/// `executor` (see ``ExecutorChoice``): Swift's global concurrent executor, as
/// an app's tasks would, or the harness's own; the coordinator is the calling
/// (non-pool) thread.
enum TaskDriver {
    /// Runs the trial; with `rounds` (a scenario), in rounds (see ``ThreadDriver``).
    /// Returns the workers' reports and, on the harness executor, its figures.
    static func run<State: AnyObject & Sendable>(
        state: State, makeOperations: @escaping @Sendable () -> [StressOperation<State>], strategy: any IsolatingStrategy, board: SiteBoard,
        fuzz: (any FuzzCoordinator)?, window: UsageWindow, settings: TrialSettings, rounds: RoundProgram? = nil, executor: ExecutorChoice = .global
    ) -> (reports: [WorkerReport], executor: ExecutorStats?) {
        let n = settings.threads
        let scheduler = executor == .global ? nil : JobScheduler(
            workers: n, threads: min(n, HarnessThreads.count), deterministic: executor == .deterministic,
            fuzz: settings.fuzz, seed: settings.seed)
        board.executor.attach(scheduler)
        // Deterministic: the global executor's jobs run on the one thread too;
        // parallel: they are counted (see ExecutorStats.globalJobs).
        let hooked = scheduler.map(GlobalEnqueueHook.attach) == true
        // Deterministic: the executor chooses every interleaving from the seed;
        // the fuzz points of the steps would only add wall-clock pauses.
        let workerSettings = executor == .deterministic ? settings.withoutFuzzing : settings
        let fuzz = executor == .deterministic ? nil : fuzz
        // The coordinator's wake-ups of every worker at once (the first jobs,
        // the barriers) reach the executor as one batch.
        let batch: @Sendable (() -> Void) -> Void = { body in if let scheduler { scheduler.hold(body) } else { body() } }
        let control = TrialControl(stopRequested: settings.stopRequested)
        let warmupGate = TaskGate(parties: n)
        let measureGate = TaskGate(parties: n)
        let endGate = TaskGate(parties: n)
        let reports = ReportSlots(count: n)
        let phases = TrialPhases(control: control, warmupGate: warmupGate, measureGate: measureGate, endGate: endGate, opening: batch)
        let finished = DispatchGroup()

        let work: @Sendable (Int) async -> Void = { t in
            // Operations made for this worker alone: its step closures' contexts are
            // its own, so calling them never touches a reference count another
            // worker also writes.
            let operations = makeOperations()
            var worker = Worker(thread: t, settings: workerSettings, operations: operations, board: board, fuzzShared: fuzz)
            if settings.stopOnViolation {
                worker.stopSignal = control
                worker.ambient.pointee.stopSignal = control
            }
            worker.ambient.pointee.control = control
            // Code under test finds its worker through the task, not the thread.
            await AmbientHandle.$current.withValue(AmbientHandle(context: worker.ambient)) {
                worker.publish(.atBarrier)
                await warmupGate.arrive()
                // Past the barrier (see ThreadDriver).
                worker.publish(.betweenOperations)
                if let rounds {
                    await runRounds(&worker, operations, rounds, strategy, phases, settings)
                } else {
                    await runOperations(&worker, operations, state, strategy, phases, settings)
                }
                worker.publish(.finished)
                await endGate.arrive()
            }
            reports.deposit(worker.finish(), at: t)
            finished.leave()
        }
        batch {
            for t in 0..<n {
                finished.enter()
                if let scheduler {
                    Task.detached(executorPreference: scheduler.facades[t]) { await work(t) }
                } else {
                    Task.detached { await work(t) }
                }
            }
        }

        phases.coordinate(settings: settings, board: board, fuzz: fuzz, rounds: rounds, window: window, readsWorkers: false)
        finished.wait()
        if hooked { GlobalEnqueueHook.detach() }
        finished.enter()
        Task.detached {
            await strategy.quiesce()
            finished.leave()
        }
        finished.wait()
        scheduler?.shutDown()
        board.executor.attach(nil)
        return (reports.collected, scheduler?.stats)
    }

    /// A worker's part of a scenario (see ``ThreadDriver``).
    private static func runRounds<State: AnyObject & Sendable>(
        _ worker: inout Worker, _ operations: [StressOperation<State>], _ rounds: RoundProgram, _ strategy: any IsolatingStrategy,
        _ phases: TrialPhases<TaskGate>, _ settings: TrialSettings
    ) async {
        let control = phases.control
        worker.outcomes = OutcomeTable()
        var round = 0
        if settings.warmupNs > 0 {
            round = await RoundLoop.run(&worker, operations, rounds, strategy, control, phase: TrialControl.warmup, round: 0)
        }
        worker.publish(.atBarrier)
        await phases.measureGate.arrive()
        worker.publish(.betweenOperations)
        worker.startNs = MonotonicClock.now()
        _ = await RoundLoop.run(&worker, operations, rounds, strategy, control, phase: TrialControl.measure, round: round)
        worker.endNs = MonotonicClock.now()
    }

    /// A worker's part of a workload: untimed warm-up operations until the
    /// coordinator ends the warm-up, then the measured window in the loop
    /// compiled for the strategy's type (``_MeasuredTaskLoop``) when the
    /// program is one operation of one read or write step with fuzzing off,
    /// else in the general loop.
    private static func runOperations<State: AnyObject & Sendable>(
        _ worker: inout Worker, _ operations: [StressOperation<State>], _ state: State, _ strategy: any IsolatingStrategy,
        _ phases: TrialPhases<TaskGate>, _ settings: TrialSettings
    ) async {
        let control = phases.control
        while settings.warmupNs > 0 && control.current == TrialControl.warmup {
            let i = worker.begin()
            let (result, step) = await execute(operations[i], state: state, strategy: strategy, frame: &worker.frame, slot: worker.slot)
            worker.end(i, result, step: step, measured: false)
        }
        worker.publish(.atBarrier)
        await phases.measureGate.arrive()
        worker.publish(.betweenOperations)
        await worker.staggerTask()
        worker.startNs = MonotonicClock.now()
        // The worker in memory of its own for the compiled loop.
        let own = UnsafeMutablePointer<Worker>.allocate(capacity: 1)
        own.initialize(to: worker)
        if let loop = _MeasuredTaskLoop(worker: own, operations: operations, state: state, control: control, stop: settings.stop) {
            await strategy._runMeasuredTaskLoop(loop)
            worker = own.move()
            own.deallocate()
        } else {
            own.deinitialize(count: 1)
            own.deallocate()
            await generalLoop(&worker, operations, state, strategy, control, settings.stop)
        }
        worker.endNs = MonotonicClock.now()
    }

    /// The measured loop of any program: each operation through the general
    /// `execute(_:state:strategy:frame:slot:)`.
    private static func generalLoop<State: AnyObject & Sendable>(
        _ worker: inout Worker, _ operations: [StressOperation<State>], _ state: State, _ strategy: any IsolatingStrategy,
        _ control: TrialControl, _ stop: StopCondition
    ) async {
        switch stop {
        case .duration:
            while control.current != TrialControl.stop { await timedOperation(&worker, operations, state, strategy) }
        case .operations(let count):
            var left = count
            while left > 0 && control.current != TrialControl.stop {
                await timedOperation(&worker, operations, state, strategy)
                left -= 1
            }
        }
    }

    @inline(__always)
    private static func timedOperation<State: AnyObject & Sendable>(
        _ worker: inout Worker, _ operations: [StressOperation<State>], _ state: State, _ strategy: any IsolatingStrategy
    ) async {
        let i = worker.begin()
        if worker.shouldTime() {
            let start = worker.startTiming()
            let (result, step) = await execute(operations[i], state: state, strategy: strategy, frame: &worker.frame, slot: worker.slot)
            worker.finishTiming(start)
            worker.end(i, result, step: step, measured: true)
        } else {
            let (result, step) = await execute(operations[i], state: state, strategy: strategy, frame: &worker.frame, slot: worker.slot)
            worker.end(i, result, step: step, measured: true)
        }
    }

    /// Why `operations` cannot run on tasks under `strategy`: a step that
    /// needs a worker thread of its own, or a paced load. Nil when they can.
    static func refusal<State>(_ operations: [StressOperation<State>], strategy: String, settings: TrialSettings) -> EngineError? {
        if let step = operations.flatMap(\.steps).first(where: { $0.access.isExtended && !$0.access.waits }) {
            return EngineError("step '\(step.name)' holds a resource across steps or nests deeper than two, which needs a worker thread "
                               + "of its own; under \(strategy) this program's workers are tasks (an actor strategy, or an async step)")
        }
        guard settings.load.mode == .closed else {
            return EngineError("a paced load needs thread workers; under \(strategy) this program's workers are tasks "
                               + "(an actor strategy, or an async step), which stressbench drives closed-loop")
        }
        return nil
    }
}
