import Synchronization

/// Runs operation `op` of a compiled program under a blocking strategy, on the
/// calling thread. Returns the result that ended the operation and the index of
/// that step within the operation.
@inline(__always)
func execute(
    _ op: Int, _ program: CompiledProgram, state: ErasedState, access: BlockingAccess, frame: inout OpFrame
) -> (StepResult, Int) {
    let strategy = access.strategy
    let operation = program.operations[op]
    var index = 0
    var result = StepResult.next
    frame.fuzz(.operationStart, detail: op)
    while true {
        let at = index
        result = runStep(operation.steps + index, at, state: state, access: access, strategy: strategy, frame: &frame)
        // A pattern match, not `!=`: comparing the enum would call its
        // synthesized equality (and copy the message) on every step.
        guard case .next = result else { break }
        index &+= 1
        if index == operation.stepCount {
            index &-= 1
            break
        }
        // Between two steps: where a real program leaves one critical section
        // (or a computation outside any) and goes on to the next.
        frame.fuzz(.betweenSteps, detail: index)
    }
    if frame.heldMask != 0 { ExtendedSteps.releaseHeld(access, &frame) }
    frame.fuzz(.operationEnd)
    frame.probe.publish(operation.between)
    return (result, index)
}

/// One step of ``execute(_:_:state:access:frame:)``: the one step sequence
/// (``StepPath``) with the general loop's hooks (``GeneralStepHooks``), its
/// variant for strategies that take ``CriticalSection`` values, a write handed
/// to an asynchronous writer, or an extended step.
@inline(__always)
private func runStep(
    _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ index: Int, state: ErasedState, access: BlockingAccess,
    strategy: any BlockingStrategy, frame: inout OpFrame
) -> StepResult {
    var hooks = GeneralStepHooks(step, index: index, access: access)
    switch step.pointee.access {
    case .unguarded, .nestedWrite:
        break
    case .read(let r):
        if let sections = access.sections {
            return passSection(step, state, &hooks, &frame) { sections.read(r, section: $0) }
        }
    case .write(let r):
        if let deferred = access.deferredWrites {
            hooks.waiting(&frame)
            frame.fuzz(.beforeAcquire)
            submit(step.pointee.body.takeUnretainedValue().body, label: access.labels[step.pointee.site], resource: r, state: state,
                   frame: frame, strategy: strategy, deferred)
            frame.fuzz(.afterRelease)
            return .next
        }
        // With `waitUntil` steps a write goes to the strategy's closure, whose
        // end the hooks signal.
        if !access.waits, let sections = access.sections {
            return passSection(step, state, &hooks, &frame) { sections.write(r, section: $0) }
        }
    case .nestedWrites, .hold, .release, .waitUntil, .awaiting:
        hooks.waiting(&frame)
        return ExtendedSteps.run(step, index, state: state, access: access, frame: &frame)
    }
    return StepPath.run(step.pointee.access, strategy, &hooks, frame: &frame) { step.pointee.call(state, &$0) }
}

/// ``StepPath/run(_:_:_:frame:body:)`` for a strategy that takes
/// ``CriticalSection`` values: the same hooks at the same points, the section
/// reached through a record on this stack frame, so nothing is allocated.
@inline(__always)
private func passSection(
    _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ state: ErasedState, _ hooks: inout GeneralStepHooks,
    _ frame: inout OpFrame, _ enter: (CriticalSection) -> Void
) -> StepResult {
    hooks.waiting(&frame)
    let asked = hooks.asking(&frame, inner: false)
    let result = withUnsafeMutablePointer(to: &hooks) { hooks in
        withUnsafeMutablePointer(to: &frame) { frame in
            var record = SectionRecord(frame: frame, hooks: hooks, step: step, state: state, asked: asked)
            return withUnsafeMutablePointer(to: &record) { record in
                // One pointer: fits the existential's inline buffer, so no box.
                var body: any SectionBody = EngineSection(record: record)
                withUnsafeMutablePointer(to: &body) { enter(CriticalSection($0)) }
                return record.pointee.result
            }
        }
    }
    hooks.left(&frame)
    return result
}

/// What a ``CriticalSection`` from the engine needs, on the engine's stack.
private struct SectionRecord {
    let frame: UnsafeMutablePointer<OpFrame>
    let hooks: UnsafeMutablePointer<GeneralStepHooks>
    let step: UnsafeMutablePointer<CompiledProgram.CompiledStep>
    // unowned(unsafe): the record lives on the caller's stack for one call,
    // while the caller holds `state`; a strong reference would cost a retain
    // and a release per operation.
    unowned(unsafe) let state: ErasedState
    let asked: UInt64
    var result = StepResult.next
}

/// The engine's side of a ``CriticalSection``: the guarded step, between the
/// hooks of the inside of ``StepPath``'s sequence.
private struct EngineSection: SectionBody {
    let record: UnsafeMutablePointer<SectionRecord>

    func run() {
        let r = record
        r.pointee.hooks.pointee.entered(r.pointee.asked, &r.pointee.frame.pointee)
        r.pointee.result = r.pointee.step.pointee.call(r.pointee.state, &r.pointee.frame.pointee)
        r.pointee.hooks.pointee.leaving(&r.pointee.frame.pointee, innermost: true)
    }
}

/// Hands a write step to an asynchronous writer. The block gets a copy of the
/// frame; what it changes is lost to later steps, as with any `async` block.
/// Its fuzz points (block entry and exit) run on whichever thread runs it, from
/// the copy's fuzzer, so they are as reproducible as the submitting worker's.
private func submit(
    _ body: @escaping ErasedStepBody, label: String, resource: Int, state: ErasedState,
    frame: OpFrame, strategy: any BlockingStrategy, _ deferred: DeferredViolations
) {
    strategy.submitWrite(resource) {
        var f = frame
        f.fuzz(.afterAcquire)
        let result = body(state, &f)
        f.fuzz(.beforeRelease)
        if case .violation(let message) = result {
            let parts = label.split(separator: "/", maxSplits: 1).map(String.init)
            deferred.record(ViolationSample(thread: f.thread, operation: parts[0], step: parts.count > 1 ? parts[1] : nil,
                                            opNumber: f.opNumber, message: message + " (in an asynchronously submitted write)"))
        }
    }
}

/// Runs one operation's steps under an isolating strategy, from a task. The frame
/// travels into each isolated region as a copy and comes back with the result,
/// so nothing non-`Sendable` crosses an isolation boundary.
@inline(__always)
func execute<State: AnyObject & Sendable>(
    _ operation: StressOperation<State>, state: State, strategy: any IsolatingStrategy, frame: inout OpFrame, slot: FrameSlot
) async -> (StepResult, Int) {
    let steps = operation.steps
    var index = 0
    if frame.fuzz.active { await frame.fuzz.hitInTask(.operationStart) }
    while index < steps.count {
        let step = steps[index]
        let body = step.body
        if frame.fuzz.active, index > 0 { await frame.fuzz.hitInTask(.betweenSteps) }
        if frame.fuzz.active, step.access != .unguarded { await frame.fuzz.hitInTask(.beforeAcquire) }
        var hops = NestedHops.none
        if case .nestedWrite = step.access { hops = frame.nestedHops() }
        let at = index
        // The closures are written at each call so they stay non-escaping: their
        // context lives on the task's stack, not the heap.
        let result: StepResult
        // In a read's or a write's isolated region the body works on the
        // worker's own frame, swapped into its slot for the `await`
        // (``FrameSlot``); a nested write's frame is a copy that travels back
        // with the result. Fuzz points there block the actor's thread, as a
        // slow actor method would, while the points around the `await`
        // suspend the task.
        switch step.access {
        case .unguarded:
            frame.publish(step: at, .running)
            result = body(state, &frame)
        case .read(let r):
            swap(&frame, &slot.pointer.pointee)
            result = await StepPath.run(.read(r), strategy, TaskStepHooks(index: at, resource: r, write: false), slot: slot) {
                body(state, &$0)
            }
            swap(&frame, &slot.pointer.pointee)
        case .write(let r):
            swap(&frame, &slot.pointer.pointee)
            result = await StepPath.run(.write(r), strategy, TaskStepHooks(index: at, resource: r, write: true), slot: slot) {
                body(state, &$0)
            }
            swap(&frame, &slot.pointer.pointee)
        case .nestedWrite(let outer, let inner):
            let entry = frame
            entry.publish(step: at, .acquiring, resource: outer, write: true)
            let asked = entry.askedAt()
            let outcome = await strategy.nestedWrite(outer: outer, inner: inner, hops) {
                var f = entry
                f.entered(asked)
                f.publish(step: at, .insideInner, resource: outer, inner: inner, write: true)
                return (isolated(body, state, &f), f)
            }
            result = outcome.0
            frame = outcome.1
        case .waitUntil(let r, let timeoutNs):
            let entry = frame
            let outcome = await waitUntil(step, at: at, resource: r, timeoutNs: timeoutNs, state: state, strategy: strategy, entry: entry)
            result = outcome.0
            frame = outcome.1
        case .awaiting:
            // The task suspends in the code under test as often as it awaits;
            // the harness executor sees each job of it.
            frame.publish(step: at, .awaiting)
            result = await step.asyncBody?(state, &frame) ?? .next
        case .nestedWrites, .hold, .release:
            preconditionFailure("the engine refuses these steps under an isolating strategy before the trial starts")
        }
        if frame.fuzz.active, step.access != .unguarded { await frame.fuzz.hitInTask(.afterRelease) }
        if case .next = result {} else {
            frame.publish(step: 0, .betweenOperations)
            return (result, index)
        }
        index += 1
    }
    if frame.fuzz.active { await frame.fuzz.hitInTask(.operationEnd) }
    frame.publish(step: 0, .betweenOperations)
    return (.next, steps.count - 1)
}

/// A step body inside an actor's isolated region, with the fuzz points on entry
/// and before leaving.
@inline(__always)
func isolated<State: AnyObject & Sendable>(
    _ body: @Sendable (State, inout OpFrame) -> StepResult, _ state: State, _ frame: inout OpFrame
) -> StepResult {
    frame.fuzzIsolated(.afterAcquire)
    frame.insideActor = true
    let result = body(state, &frame)
    frame.insideActor = false
    frame.fuzzIsolated(.beforeRelease)
    return result
}
