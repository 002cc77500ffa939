import Dispatch
import Synchronization

/// Drives a trial with Swift tasks, for isolating strategies (actors): the same
/// phases and the same closed loop as ``ThreadDriver``, with `await` where a
/// thread would block. The tasks run on the global concurrent executor, as an
/// app's tasks would; the coordinator is the calling (non-pool) thread.
enum TaskDriver {
    /// Runs the trial; with `rounds` (a scenario), in rounds (see ``ThreadDriver``).
    static func run<State: AnyObject & Sendable>(
        state: State, makeOperations: @escaping @Sendable () -> [StressOperation<State>], strategy: any IsolatingStrategy, board: SiteBoard,
        fuzz: FuzzShared?, window: UsageWindow, settings: TrialSettings, rounds: RoundProgram? = nil
    ) -> [WorkerReport] {
        let n = settings.threads
        let control = TrialControl(stopRequested: settings.stopRequested)
        let warmupGate = TaskGate(parties: n)
        let measureGate = TaskGate(parties: n)
        let endGate = TaskGate(parties: n)
        let reports = ReportSlots(count: n)
        let finished = DispatchGroup()

        for t in 0..<n {
            finished.enter()
            Task.detached {
                // Operations made for this worker alone: its step closures' contexts are
                // its own, so calling them never touches a reference count another
                // worker also writes.
                let operations = makeOperations()
                var worker = Worker(thread: t, settings: settings, operations: operations, board: board, fuzzShared: fuzz)
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
                        worker.outcomes = OutcomeTable()
                        var round = 0
                        if settings.warmupNs > 0 {
                            round = await RoundLoop.run(&worker, operations, rounds, strategy, control, phase: TrialControl.warmup, round: 0)
                        }
                        worker.publish(.atBarrier)
                        await measureGate.arrive()
                        worker.publish(.betweenOperations)
                        worker.startNs = MonotonicClock.now()
                        _ = await RoundLoop.run(&worker, operations, rounds, strategy, control, phase: TrialControl.measure, round: round)
                        worker.endNs = MonotonicClock.now()
                        worker.publish(.finished)
                        await endGate.arrive()
                        return
                    }
                    while settings.warmupNs > 0 && control.current == TrialControl.warmup {
                        let i = worker.begin()
                        let (result, step) = await execute(operations[i], state: state, strategy: strategy, frame: &worker.frame)
                        worker.end(i, result, step: step, measured: false)
                    }
                    worker.publish(.atBarrier)
                    await measureGate.arrive()
                    worker.publish(.betweenOperations)
                    await worker.staggerTask()
                    worker.startNs = MonotonicClock.now()
                    switch settings.stop {
                    case .duration:
                        while control.current != TrialControl.stop { await timedOperation(&worker, operations, state, strategy) }
                    case .operations(let count):
                        var left = count
                        while left > 0 && control.current != TrialControl.stop {
                            await timedOperation(&worker, operations, state, strategy)
                            left -= 1
                        }
                    }
                    worker.endNs = MonotonicClock.now()
                    worker.publish(.finished)
                    await endGate.arrive()
                }
                reports.deposit(worker.finish(), at: t)
                finished.leave()
            }
        }

        warmupGate.waitForAll()
        board.arm()
        rounds?.prepare(measured: false)
        warmupGate.release()
        control.sleep(upTo: settings.warmupNs)
        control.beginMeasuring()
        measureGate.waitForAll()
        PCTCalibration.calibrate(fuzz, board: board, settings: settings, rounds: rounds)
        window.open()
        measureGate.release()
        if case .duration(let ns) = settings.stop {
            control.sleep(upTo: ns)
            control.enter(TrialControl.stop)
        }
        control.watch { endGate.hasAllArrived }
        endGate.waitForAll()
        window.close()
        endGate.release()
        finished.wait()
        finished.enter()
        Task.detached {
            await strategy.quiesce()
            finished.leave()
        }
        finished.wait()
        return reports.collected
    }

    @inline(__always)
    private static func timedOperation<State: AnyObject & Sendable>(
        _ worker: inout Worker, _ operations: [StressOperation<State>], _ state: State, _ strategy: any IsolatingStrategy
    ) async {
        let i = worker.begin()
        if worker.shouldTime() {
            let start = worker.startTiming()
            let (result, step) = await execute(operations[i], state: state, strategy: strategy, frame: &worker.frame)
            worker.finishTiming(start)
            worker.end(i, result, step: step, measured: true)
        } else {
            let (result, step) = await execute(operations[i], state: state, strategy: strategy, frame: &worker.frame)
            worker.end(i, result, step: step, measured: true)
        }
    }
}
