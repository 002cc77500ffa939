/// One worker's measured closed loop, handed to a blocking strategy so that it
/// runs compiled for the strategy's own type.
///
/// This is how the engine stays blind to concrete strategies and still gets a
/// loop where the lock is called directly: the loop is a generic function of
/// the strategy's type, and ``BlockingStrategy/_runMeasuredLoop(_:)`` (whose
/// default implementation every strategy inherits) calls it with `Self`. In an
/// optimized build each built-in strategy's witness of that requirement is a
/// copy of the loop specialized for it: `read` and `write` are inlined, so an
/// uncontended `pthread_mutex` counter costs the lock, the workload's step and
/// a few stores of bookkeeping (see `scripts/bench-lock-overhead.sh`), not two
/// more indirect calls and the generic engine's per-operation branches. A
/// strategy from another module gets the same loop unspecialized (calls through
/// its witness table), which is correct, only slower.
///
/// The engine uses it only where it changes nothing but speed: fuzzing off
/// (every fuzz point is then a branch not taken), closed loop, writes not
/// deferred, closures rather than ``CriticalSection`` values. Anything else
/// runs the general ``execute(_:_:state:access:frame:)``.
///
/// Not meant to be made or run outside the engine; its contents are internal.
public struct _MeasuredLoop {
    let worker: UnsafeMutablePointer<Worker>
    let program: CompiledProgram
    /// Borrowed by every operation (the loop is passed borrowed), so holding
    /// it costs no reference counting per operation.
    let state: ErasedState
    let control: TrialControl
    /// Operations this worker runs, or nil to run until the trial stops.
    let operations: Int?

    /// The most untimed operations run in one batch (the trial's phase is
    /// still looked at before each).
    static let batch = 64

    /// Runs the loop with `strategy` as a concrete type: untimed operations
    /// in batches (up to the next timed one), each timed one on its own.
    func run<S: BlockingStrategy>(_ strategy: S) {
        var left = operations ?? Int.max
        while left > 0 && control.current != TrialControl.stop {
            let untimed = Swift.min(worker.pointee.countdown, left, Self.batch)
            if untimed > 0 {
                let ran = untimedBatch(untimed, strategy)
                worker.pointee.ranUntimed(ran)
                left &-= ran
            } else {
                timedOperation(strategy)
                left &-= 1
            }
        }
    }

    /// Up to `count` operations, none of them timed, with what the loop needs
    /// in locals: per operation the look at the trial's phase (a stop, or the
    /// first violation with `stop_on_violation`, ends the batch at once), the
    /// pick, the frame's reset, the steps (site words published as in
    /// ``execute(_:_:state:access:frame:)``), the count and the progress report
    /// to the watchdog. Returns how many ran.
    @inline(never)
    private func untimedBatch<S: BlockingStrategy>(_ count: Int, _ strategy: S) -> Int {
        let w = worker
        let operations = program.operations.baseAddress!
        if let only = w.pointee.picker.single, operations[only].stepCount == 1 {
            return uniformBatch(count, only, strategy)
        }
        let picker = w.pointee.picker
        let counts = w.pointee.counts
        let probe = w.pointee.frame.probe
        let state = self.state
        // The op number is the loop's counter (how many ran and how many are
        // left follow from it): one value fewer kept across the body's call.
        let first = w.pointee.opNumber
        let last = first &+ count
        var number = first
        repeat {
            let i = picker.pick(&w.pointee.frame.random)
            let op = operations + i
            w.pointee.frame.beginOperation(number: number, siteBase: op.pointee.siteBase)
            number &+= 1
            let (result, step) = executeDirect(op, strategy, state: state, frame: &w.pointee.frame, probe: probe, timed: false)
            switch result {
            case .next, .finish:
                counts[i] &+= 1
                // Exact progress for the watchdog's report (one store).
                probe.completed(number)
            case .violation(let message):
                w.pointee.opNumber = number
                w.pointee.end(i, .violation(message), step: step, measured: true)
            }
        } while number != last && control.current != TrialControl.stop
        w.pointee.opNumber = number
        return number &- first
    }

    /// ``untimedBatch(_:_:)`` when the worker has one operation of one step
    /// (the counter's increment, a plain lock benchmark): no pick, and what the
    /// operation publishes and calls is read once, into locals, not again after
    /// every call of its body (which the compiler must assume could change
    /// memory). The kind of access is looked at once too, not per operation:
    /// a read and a write each get their own copy of the loop
    /// (``uniformLoop(_:_:_:)``), where the look would otherwise be an indirect
    /// jump per operation; the rarer unguarded and nested steps share one copy
    /// that still looks per operation (``directStep``). The frame's
    /// site base is set once and the count is added when the batch ends: fewer
    /// stores for the lock's atomic instructions to wait for. The same
    /// operations, words and counts as the general batch.
    @inline(__always)
    private func uniformBatch<S: BlockingStrategy>(_ count: Int, _ i: Int, _ strategy: S) -> Int {
        let step = program.operations[i].steps.pointee
        let probe = worker.pointee.frame.probe
        let state = self.state
        // Each case hands the one step sequence a constant access, so its
        // switch folds away and each loop is that access's alone.
        switch step.access {
        case .read(let r):
            return uniformLoop(count, i) { frame in
                var hooks = DirectStepHooks(step, index: 0, probe: probe, timed: false)
                return StepPath.run(.read(r), strategy, &hooks, frame: &frame) { step.call(state, &$0) }
            }
        case .write(let r):
            return uniformLoop(count, i) { frame in
                var hooks = DirectStepHooks(step, index: 0, probe: probe, timed: false)
                return StepPath.run(.write(r), strategy, &hooks, frame: &frame) { step.call(state, &$0) }
            }
        default:
            return uniformLoop(count, i) { frame in
                directStep(step, 0, strategy, frame: &frame, probe: probe, timed: false) { step.call(state, &$0) }
            }
        }
    }

    /// The loop of ``uniformBatch(_:_:_:)``: `body` runs the step and
    /// publishes its site words (waiting, then inside, where the step's access
    /// puts them). Inlined with its body, so each caller in
    /// ``uniformBatch(_:_:_:)`` has a loop of its own with no call of `body`.
    @inline(__always)
    private func uniformLoop(_ count: Int, _ i: Int, _ body: (inout OpFrame) -> StepResult) -> Int {
        let w = worker
        let op = program.operations[i]
        let counted = w.pointee.counts + i
        let probe = w.pointee.frame.probe
        let control = self.control
        // The op number is the loop's only counter (how many ran and how many
        // are left both follow from it), so nothing else is written back to
        // the stack on every operation.
        let first = w.pointee.opNumber
        let last = first &+ count
        var number = first
        var violations = 0
        w.pointee.frame.siteBase = op.siteBase
        repeat {
            w.pointee.frame.beginOperation(number: number)
            number &+= 1
            let result = body(&w.pointee.frame)
            probe.publish(op.between)
            switch result {
            case .next, .finish:
                probe.completed(number)
            case .violation(let message):
                // Booked (and counted) by the worker, as in the general batch.
                violations &+= 1
                w.pointee.opNumber = number
                w.pointee.end(i, .violation(message), step: 0, measured: true)
            }
        } while number != last && control.current != TrialControl.stop
        let ran = number &- first
        counted.pointee &+= ran &- violations
        w.pointee.opNumber = number
        return ran
    }

    /// One timed operation: the sampling's countdown is at 0, so
    /// ``Worker/shouldTime()`` says yes (and draws the next gap). As lean as a
    /// batch's operation around its clock reads (with `sample: 1` every
    /// operation comes here): the operation's own site base, the probe in a
    /// local, the result looked at once.
    @inline(__always)
    private func timedOperation<S: BlockingStrategy>(_ strategy: S) {
        timedOperation { op, frame, probe in
            executeDirect(op, strategy, state: state, frame: &frame, probe: probe, timed: true)
        }
    }

    /// ``timedOperation(_:)-(S)`` with what runs the operation's steps given:
    /// `execute` runs them and publishes their words (and the word after the
    /// operation), and returns the result and the step it ended at.
    @inline(__always)
    func timedOperation(
        _ execute: (UnsafeMutablePointer<CompiledProgram.CompiledOperation>, inout OpFrame, SiteProbe) -> (StepResult, Int)
    ) {
        let w = worker
        let i = w.pointee.picker.pick(&w.pointee.frame.random)
        let op = program.operations.baseAddress! + i
        let number = w.pointee.opNumber
        w.pointee.frame.beginOperation(number: number, siteBase: op.pointee.siteBase)
        w.pointee.opNumber = number &+ 1
        let timed = w.pointee.shouldTime()
        assert(timed, "run() times an operation only when the countdown is at 0")
        let probe = w.pointee.frame.probe
        let start = w.pointee.startTiming()
        let (result, step) = execute(op, &w.pointee.frame, probe)
        w.pointee.finishTiming(start)
        switch result {
        case .next, .finish:
            w.pointee.counts[i] &+= 1
            probe.completed(number &+ 1)
        case .violation(let message):
            w.pointee.end(i, .violation(message), step: step, measured: true)
        }
    }
}

extension BlockingStrategy {
    /// Runs the engine's measured loop compiled for this strategy's type. The
    /// engine calls it; a strategy does not implement it (the default is the
    /// only sensible one: see ``_MeasuredLoop``).
    public func _runMeasuredLoop(_ loop: _MeasuredLoop) {
        loop.run(self)
    }
}

/// ``execute(_:_:state:access:frame:)`` without fuzz points, deferred writes or
/// sections, with the strategy's type known: the same steps, the same site words
/// published, the same acquire timing when `timed`.
@inline(__always)
func executeDirect<S: BlockingStrategy>(
    _ op: UnsafeMutablePointer<CompiledProgram.CompiledOperation>, _ strategy: S, state: ErasedState, frame: inout OpFrame,
    probe: SiteProbe, timed: Bool
) -> (StepResult, Int) {
    let steps = op.pointee.steps
    var result = directStep(steps.pointee, 0, strategy, frame: &frame, probe: probe, timed: timed) { steps.pointee.call(state, &$0) }
    var index = 0
    // Most operations are one step: the loop below is for the others.
    if op.pointee.stepCount > 1 {
        let last = op.pointee.stepCount &- 1
        while case .next = result, index < last {
            index &+= 1
            let step = steps[index]
            result = directStep(step, index, strategy, frame: &frame, probe: probe, timed: timed) { step.call(state, &$0) }
        }
    }
    probe.publish(op.pointee.between)
    return (result, index)
}

/// One step of ``executeDirect(_:_:state:frame:probe:timed:)``: the one step
/// sequence (``StepPath``) with this loop's hooks (``DirectStepHooks``).
/// `probe` is the frame's, in a local: the frame is handed to the body, so a
/// probe read from it would be read again after every call. `body` runs the
/// step's body: its closure, or its kernel inlined.
@inline(__always)
func directStep<S: BlockingStrategy>(
    _ step: CompiledProgram.CompiledStep, _ index: Int, _ strategy: S, frame: inout OpFrame,
    probe: SiteProbe, timed: Bool, body: (inout OpFrame) -> StepResult
) -> StepResult {
    var hooks = DirectStepHooks(step, index: index, probe: probe, timed: timed)
    return StepPath.run(step.access, strategy, &hooks, frame: &frame, body: body)
}
