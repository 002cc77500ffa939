import CStressSupport
import Foundation
import Synchronization

/// Drives a trial with OS threads, for blocking strategies.
///
/// Each worker: meet at the start barrier, run untimed warm-up ops until the
/// coordinator ends the warm-up, meet again, then run the measured closed loop
/// (pick, time, run, record) until the stop condition, and meet a last time
/// before building its report. The coordinator's side is ``TrialPhases``.
enum ThreadDriver {
    /// Runs the trial. With `rounds` (a scenario), worker `i` runs role `i`
    /// in rounds (``RoundLoop``) instead of the closed loop; `state` is then
    /// unused (each round has its own).
    static func run<State: AnyObject & Sendable>(
        state: State, makeOperations: @escaping @Sendable () -> [StressOperation<State>], access: BlockingAccess, board: SiteBoard,
        fuzz: (any FuzzCoordinator)?, window: UsageWindow, schedule: PacingSchedule, settings: TrialSettings, rounds: RoundProgram? = nil,
        controlled: ControlledScheduler? = nil
    ) throws(EngineError) -> [WorkerReport] {
        let n = settings.threads
        let control = TrialControl(stopRequested: settings.stopRequested)
        access.attach(control)
        controlled?.attach(control)
        let warmupGate = ThreadGate(parties: n)
        let measureGate = ThreadGate(parties: n)
        let endGate = ThreadGate(parties: n)
        let reports = ReportSlots(count: n)
        let phases = TrialPhases(control: control, warmupGate: warmupGate, measureGate: measureGate, endGate: endGate)
        // The loop compiled for the strategy's type, where it changes nothing but
        // speed (see _MeasuredLoop).
        let direct = !settings.fuzz.isActive && fuzz == nil && access.sections == nil && access.deferredWrites == nil && !access.hasExtendedSteps
        var threads: [OSThread] = []

        for t in 0..<n {
            let spawned = OSThread.spawn {
                // Operations made for this worker alone: its step closures' contexts are
                // its own, so calling them never touches a reference count another
                // worker also writes.
                let operations = makeOperations()
                WorkerThreadName.adopt(worker: t)
                var worker = Worker(thread: t, settings: settings, operations: operations, board: board, fuzzShared: fuzz)
                worker.ambient.pointee.scheduling = controlled
                worker.frame.probe.identifyThread()
                worker.attachToThread(board)
                defer { worker.detachFromThread() }
                if settings.stopOnViolation {
                    worker.stopSignal = control
                    worker.ambient.pointee.stopSignal = control
                }
                // The worker's own flattened copy of the operations.
                let program = CompiledProgram(operations, siteBase: board.siteBase)
                worker.publish(.atBarrier)
                warmupGate.arriveAndWait()
                // Past the barrier: say so at once, or a crash report or the
                // watchdog would show this worker waiting at it until its
                // first operation.
                worker.publish(.betweenOperations)
                if let rounds {
                    runRounds(&worker, program, rounds, access, phases, settings)
                } else {
                    runOperations(&worker, program, state, access, phases, settings, schedule, direct: direct, controlled: controlled)
                }
                worker.publish(.finished)
                endGate.arriveAndWait()
                program.deallocate()
                reports.deposit(worker.finish(), at: t)
            }
            guard let spawned else {
                // Release the threads already started so they can end, then report.
                phases.abandon()
                for thread in threads { thread.join() }
                throw EngineError("could not start worker thread \(t) of \(n)")
            }
            threads.append(spawned)
        }

        phases.coordinate(settings: settings, board: board, fuzz: fuzz, rounds: rounds, window: window, readsWorkers: true) {
            schedule.resolve(settings, board: board)
        }
        for thread in threads { thread.join() }
        // Under control, the blocks the workers left queued are drained by
        // then (the last worker's departure hands the token to the queue
        // workers): their threads end, and the final checks see it all.
        controlled?.joinQueueWorkers()
        access.strategy.quiesce()
        return reports.collected
    }

    /// A worker's part of a scenario: role `worker.frame.thread` in rounds,
    /// through the warm-up (when there is one) and the measured window.
    private static func runRounds(
        _ worker: inout Worker, _ program: CompiledProgram, _ rounds: RoundProgram, _ access: BlockingAccess,
        _ phases: TrialPhases<ThreadGate>, _ settings: TrialSettings
    ) {
        let control = phases.control
        worker.outcomes = OutcomeTable()
        var round = 0
        if settings.warmupNs > 0 {
            round = RoundLoop.run(&worker, program, rounds, access, control, phase: TrialControl.warmup, round: 0)
        }
        worker.publish(.atBarrier)
        phases.measureGate.arriveAndWait()
        worker.publish(.betweenOperations)
        worker.startNs = MonotonicClock.now()
        let controlled = worker.ambient.pointee.scheduling
        controlled?.arrive(worker.frame.thread)
        _ = RoundLoop.run(&worker, program, rounds, access, control, phase: TrialControl.measure, round: round)
        controlled?.depart(worker.frame.thread)
        worker.endNs = MonotonicClock.now()
    }

    /// A worker's part of a workload: untimed warm-up operations until the
    /// coordinator ends the warm-up, then the measured window in the loop the
    /// trial allows: paced, compiled for the strategy's type (`direct`: it
    /// changes nothing but speed, see ``_MeasuredLoop``), or the general one.
    private static func runOperations(
        _ worker: inout Worker, _ program: CompiledProgram, _ state: ErasedState, _ access: BlockingAccess,
        _ phases: TrialPhases<ThreadGate>, _ settings: TrialSettings, _ schedule: PacingSchedule, direct: Bool,
        controlled: ControlledScheduler?
    ) {
        let control = phases.control
        while settings.warmupNs > 0 && control.current == TrialControl.warmup {
            let i = worker.begin()
            let (result, step) = execute(i, program, state: state, access: access, frame: &worker.frame)
            worker.end(i, result, step: step, measured: false)
        }
        worker.flushAllocatorCache()
        worker.publish(.atBarrier)
        phases.measureGate.arriveAndWait()
        worker.publish(.betweenOperations)
        worker.stagger()
        worker.beginAllocationCount()
        worker.startNs = MonotonicClock.now()
        // Under control, from here to its end this worker runs only while it
        // holds the run token; one that shrinking leaves idle runs nothing
        // and takes no part.
        let idle = !settings.runsOperations(worker.frame.thread)
        if !idle { controlled?.arrive(worker.frame.thread) }
        defer { if !idle { controlled?.depart(worker.frame.thread) } }
        if settings.load.mode == .paced {
            pacedLoop(&worker, program, state, access, control, settings, schedule.perWorkerRate)
        } else if direct {
            withUnsafeMutablePointer(to: &worker) { w in
                let loop = _MeasuredLoop(
                    worker: w, program: program, state: state, control: control, operations: settings.stop.opsPerThread)
                if let kernel = loop.soleKernel {
                    kernel._runMeasuredLoop(loop, access.strategy)
                } else {
                    w.pointee.measuredLoop = .compiledForStrategy
                    access.strategy._runMeasuredLoop(loop)
                }
            }
        } else {
            switch settings.stop {
            case .duration:
                while control.current != TrialControl.stop { timedOperation(&worker, program, state, access) }
            case .operations(let count):
                // Shrinking's smaller runs may leave some workers idle.
                var left = idle ? 0 : count
                while left > 0 && control.current != TrialControl.stop {
                    timedOperation(&worker, program, state, access)
                    left -= 1
                }
            }
        }
        worker.endNs = MonotonicClock.now()
        worker.endAllocationCount()
    }

    /// The open loop: each operation has an intended start on a fixed or
    /// Poisson schedule. A worker ahead of schedule waits before the operation
    /// (sleeping only when far ahead, then spinning: never inside a timed
    /// window); one behind starts at once and catches up without skipping.
    /// Service time goes to the usual histogram, end − intended start to the
    /// response histogram.
    private static func pacedLoop(
        _ worker: inout Worker, _ program: CompiledProgram, _ state: ErasedState, _ access: BlockingAccess,
        _ control: TrialControl, _ settings: TrialSettings, _ perWorkerRate: Double
    ) {
        let clock = worker.clock
        let ticksPerNs = 1 / clock.nanosecondsPerTick
        let meanGapTicks = 1e9 / Swift.max(perWorkerRate, 1e-3) * ticksPerNs
        var arrivals = SplitMix64(seed: SplitMix64.derive(settings.seed, 0xA77 &+ UInt64(worker.frame.thread)))
        var intended = Double(clock.now())
        var remaining = settings.stop.opsPerThread ?? Int.max
        while remaining > 0 && control.current != TrialControl.stop {
            remaining -= 1
            var now = clock.now()
            if Double(now) < intended {
                let aheadNs = (intended - Double(now)) / ticksPerNs
                if aheadNs > 200_000 {
                    // Sleep most of the way (waking early if the window ends),
                    // then spin to the intended start.
                    worker.publish(.pacing)
                    control.sleep(upTo: UInt64(aheadNs) - 100_000)
                    if control.current == TrialControl.stop { break }
                }
                while Double(clock.now()) < intended { stress_cpu_relax() }
                now = clock.now()
            }
            let due = UInt64(intended)
            worker.maxLagTicks = Swift.max(worker.maxLagTicks, now > due ? now &- due : 0)
            let i = worker.begin()
            worker.frame.timeThisOp = true
            worker.frame.acquireTicks = 0
            worker.frame.acquired = false
            worker.frame.opStartTicks = now
            let (result, step) = execute(i, program, state: state, access: access, frame: &worker.frame)
            let end = clock.now()
            worker.frame.timeThisOp = false
            // Every paced op is timed, so the longest gap between two
            // completions includes the schedule's own gaps when the rate is low.
            worker.timing.record(
                service: end &- now, acquire: worker.frame.acquired ? worker.frame.acquireTicks : nil, end: end, weight: 1
            )
            worker.responseHistogram.record(end &- Swift.min(due, now))
            worker.end(i, result, step: step, measured: true)
            let gap = settings.load.poisson ? -log(1 - Double(arrivals.next() >> 11) * 0x1p-53) * meanGapTicks : meanGapTicks
            intended += gap
        }
    }

    /// One measured closed-loop operation: picked, run, timed when the
    /// sampling says so, booked. One call site of `execute`, so it is inlined
    /// here once rather than called.
    @inline(__always)
    private static func timedOperation(
        _ worker: inout Worker, _ program: CompiledProgram, _ state: ErasedState, _ access: BlockingAccess
    ) {
        let i = worker.begin()
        let timed = worker.shouldTime()
        let start = timed ? worker.startTiming() : 0
        let (result, step) = execute(i, program, state: state, access: access, frame: &worker.frame)
        if timed { worker.finishTiming(start) }
        worker.end(i, result, step: step, measured: true)
    }
}
