/// One task worker's measured closed loop, handed to an isolating strategy so
/// that it runs compiled for the strategy's own type: the task counterpart of
/// ``_MeasuredLoop``.
///
/// The general task path (`execute(_:state:strategy:frame:slot:)`) pays, per
/// operation, for what a program of many steps, fuzz points and nested
/// accesses needs: two async calls of its own (each a frame from the task's
/// allocator), a call of `read` or `write` through the strategy's existential
/// (a third, unspecialized over the result type), the step's closures
/// retained and released, and the worker's frame swapped into its slot and
/// back around the `await`. A hand-written task loop awaiting an actor method
/// pays for none of them: on the reference VM the `actor` strategy cost
/// 3.4 times such a loop through the general path (docs/async.md).
///
/// This loop is for the common measured case that needs none of it: one
/// operation of one `read` or `write` step, fuzzing off. The worker lives in
/// memory of its own for the loop, so its frame has a fixed address the
/// isolated region writes through (no swap); the loop is generic over the
/// strategy, so in an optimized build the built-in strategy's witness of
/// ``IsolatingStrategy/_runMeasuredTaskLoop(_:)`` is a copy with `read` and
/// `write` inlined and the actor's method specialized: what is left per
/// operation is the two hops of the `await`, the body, and the same
/// bookkeeping stores as the thread loop's. The same site words, counts,
/// timing and violations as the general path.
///
/// It is not generic over the workload's state (its step body takes an
/// ``ErasedState``, as the thread loop's do): Swift specializes a witness
/// only for all of its generic parameters, so a loop generic over the state
/// too ran unspecialized, through the strategy's witness table (1.64 times
/// the hand loop, against 1.02 now).
///
/// Not meant to be made or run outside the engine; its contents are internal.
public struct _MeasuredTaskLoop {
    let worker: UnsafeMutablePointer<Worker>
    /// The one operation's index, and its one step's body and access.
    let index: Int
    let body: CompiledProgram.BodyBox
    let resource: Int
    let isWrite: Bool
    let state: ErasedState
    let control: TrialControl
    /// Operations this worker runs, or nil to run until the trial stops.
    let operations: Int?

    /// The loop for `worker` when its program is one it can run: one operation
    /// (by weight) of one `read` or `write` step, with fuzzing off. Nil otherwise.
    init?<State: AnyObject & Sendable>(worker: UnsafeMutablePointer<Worker>, operations program: [StressOperation<State>], state: State,
                                        control: TrialControl, stop: StopCondition) {
        guard !worker.pointee.frame.fuzz.active, let index = worker.pointee.picker.single,
              program[index].steps.count == 1 else { return nil }
        let step = program[index].steps[0]
        switch step.access {
        case .read(let r): (resource, isWrite) = (r, false)
        case .write(let r): (resource, isWrite) = (r, true)
        default: return nil
        }
        self.worker = worker
        self.index = index
        body = CompiledProgram.BodyBox(CompiledProgram.erase(step.body))
        self.state = state
        self.control = control
        switch stop {
        case .duration: operations = nil
        case .operations(let n): operations = n
        }
    }

    /// Runs the loop with `strategy` as a concrete type: each operation the
    /// one step sequence (``StepPath``) with this loop's hooks
    /// (``MeasuredTaskStepHooks``), on the worker's frame in place.
    func run<S: IsolatingStrategy>(_ strategy: S) async {
        let w = worker
        // The worker's frame at its fixed address: the isolated region writes
        // through it while the task waits, with no swap.
        let slot = FrameSlot(at: w.pointer(to: \.frame)!)
        let probe = w.pointee.frame.probe
        let siteBase = w.pointee.siteBase[index]
        let waiting = SiteWord(site: siteBase, phase: .acquiring, resource: resource, write: isWrite)
        let inside = SiteWord(site: siteBase, phase: .inside, resource: resource, write: isWrite)
        let between = SiteWord(site: siteBase, phase: .betweenOperations)
        let access: StepAccess = isWrite ? .write(resource) : .read(resource)
        // The box outlives the loop (self holds it): borrowed, its body is
        // called with no reference counting per operation.
        let body = IsolatedBody(Unmanaged.passUnretained(self.body))
        let state = self.state, control = self.control, index = self.index
        var left = operations ?? Int.max
        while left > 0 && control.current != TrialControl.stop {
            left &-= 1
            slot.pointer.pointee.beginOperation(number: w.pointee.opNumber, siteBase: siteBase)
            w.pointee.opNumber &+= 1
            let timed = w.pointee.shouldTime()
            let start = timed ? w.pointee.startTiming() : 0
            let hooks = MeasuredTaskStepHooks(probe: probe, waitingWord: waiting, insideWord: inside, timed: timed, start: start)
            let result = await StepPath.run(access, strategy, hooks, slot: slot) { body.call(state, &$0) }
            if timed { w.pointee.finishTiming(start) }
            probe.publish(between)
            w.pointee.end(index, result, step: 0, measured: true)
        }
    }
}

extension IsolatingStrategy {
    /// Runs the engine's measured task loop compiled for this strategy's
    /// type. The engine calls it; a strategy does not implement it (the
    /// default is the only sensible one: see ``_MeasuredTaskLoop``).
    public func _runMeasuredTaskLoop(_ loop: _MeasuredTaskLoop) async {
        await loop.run(self)
    }
}
