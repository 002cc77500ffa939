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
    frame.fuzz(.operationStart)
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
        frame.fuzz(.betweenSteps)
    }
    if frame.heldMask != 0 { ExtendedSteps.releaseHeld(access, &frame) }
    frame.fuzz(.operationEnd)
    frame.probe.publish(operation.between)
    return (result, index)
}

/// One step of ``execute(_:_:state:access:frame:)``: publishes where the
/// worker is, asks for the step's access and runs the body.
@inline(__always)
private func runStep(
    _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ index: Int, state: ErasedState, access: BlockingAccess,
    strategy: any BlockingStrategy, frame: inout OpFrame
) -> StepResult {
    var result = StepResult.next
    frame.probe.publish(step.pointee.waiting)
    switch step.pointee.access {
    case .unguarded:
        result = step.pointee.call(state, &frame)
    case .read(let r):
        frame.fuzz(.beforeAcquire)
        let asked = frame.askedAt(step: index)
        if let sections = access.sections {
            result = passSection(step, state, asked, &frame) { sections.read(r, section: $0) }
        } else {
            strategy.read(r) {
                frame.entered(asked)
                frame.probe.publish(step.pointee.inside)
                result = guarded(step, state, &frame)
            }
        }
        frame.fuzz(.afterRelease)
    case .write(let r):
        frame.fuzz(.beforeAcquire)
        if let deferred = access.deferredWrites {
            submit(step.pointee.body.takeUnretainedValue().body, label: access.labels[step.pointee.site], resource: r, state: state,
                   frame: frame, strategy: strategy, deferred)
            result = .next
        } else if access.waits {
            // Its end is a signal to `waitUntil` steps.
            let asked = frame.askedAt(step: index)
            ExtendedSteps.notifyingWrite(r, access) {
                frame.entered(asked)
                frame.probe.publish(step.pointee.inside)
                result = guarded(step, state, &frame)
            }
        } else if let sections = access.sections {
            let asked = frame.askedAt(step: index)
            result = passSection(step, state, asked, &frame) { sections.write(r, section: $0) }
        } else {
            let asked = frame.askedAt(step: index)
            strategy.write(r) {
                frame.entered(asked)
                frame.probe.publish(step.pointee.inside)
                result = guarded(step, state, &frame)
            }
        }
        frame.fuzz(.afterRelease)
    case .nestedWrite(let outer, let inner):
        // A write inside a write, exactly as real code nests them.
        frame.fuzz(.beforeAcquire)
        let asked = frame.askedAt(step: index)
        strategy.write(outer) {
            frame.entered(asked)
            frame.probe.publish(step.pointee.waitingInner)
            frame.fuzz(.afterAcquire)
            frame.fuzz(.beforeAcquire)
            let askedInner = frame.askedAt()
            strategy.write(inner) {
                frame.entered(askedInner)
                frame.probe.publish(step.pointee.inside)
                result = guarded(step, state, &frame)
                if access.waits {
                    access.signalInside(inner)
                    if inner != outer { access.signalInside(outer) }
                }
            }
            frame.fuzz(.beforeRelease)
        }
        if access.waits {
            access.signalAfter(outer)
            if inner != outer { access.signalAfter(inner) }
        }
        frame.fuzz(.afterRelease)
    default:
        result = ExtendedSteps.run(step, index, state: state, access: access, frame: &frame)
    }
    return result
}

/// A step body inside its critical section, with the fuzz points just after
/// acquiring and just before releasing.
@inline(__always)
private func guarded(
    _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ state: ErasedState, _ frame: inout OpFrame
) -> StepResult {
    frame.fuzz(.afterAcquire)
    let result = step.pointee.call(state, &frame)
    frame.fuzz(.beforeRelease)
    return result
}

/// Runs a guarded step through a strategy that takes ``CriticalSection``
/// values: the same work as the closure the other strategies get, reached
/// through a record on this stack frame, so nothing is allocated.
@inline(__always)
private func passSection(
    _ step: UnsafeMutablePointer<CompiledProgram.CompiledStep>, _ state: ErasedState, _ asked: UInt64,
    _ frame: inout OpFrame, _ enter: (CriticalSection) -> Void
) -> StepResult {
    withUnsafeMutablePointer(to: &frame) { frame in
        var record = SectionRecord(frame: frame, step: step, state: state, asked: asked)
        return withUnsafeMutablePointer(to: &record) { record in
            // One pointer: fits the existential's inline buffer, so no box.
            var body: any SectionBody = EngineSection(record: record)
            withUnsafeMutablePointer(to: &body) { enter(CriticalSection($0)) }
            return record.pointee.result
        }
    }
}

/// What a ``CriticalSection`` from the engine needs, on the engine's stack.
private struct SectionRecord {
    let frame: UnsafeMutablePointer<OpFrame>
    let step: UnsafeMutablePointer<CompiledProgram.CompiledStep>
    // unowned(unsafe): the record lives on the caller's stack for one call,
    // while the caller holds `state`; a strong reference would cost a retain
    // and a release per operation.
    unowned(unsafe) let state: ErasedState
    let asked: UInt64
    var result = StepResult.next
}

/// The engine's side of a ``CriticalSection``: the guarded step.
private struct EngineSection: SectionBody {
    let record: UnsafeMutablePointer<SectionRecord>

    func run() {
        let r = record
        r.pointee.frame.pointee.entered(r.pointee.asked)
        r.pointee.frame.pointee.probe.publish(r.pointee.step.pointee.inside)
        r.pointee.result = guarded(r.pointee.step, r.pointee.state, &r.pointee.frame.pointee)
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
            frame.publish(step: at, .acquiring, resource: r)
            let asked = frame.askedAt()
            swap(&frame, &slot.pointer.pointee)
            result = await strategy.read(r) {
                slot.pointer.pointee.entered(asked)
                slot.pointer.pointee.publish(step: at, .inside, resource: r)
                return isolated(body, state, &slot.pointer.pointee)
            }
            swap(&frame, &slot.pointer.pointee)
        case .write(let r):
            frame.publish(step: at, .acquiring, resource: r, write: true)
            let asked = frame.askedAt()
            swap(&frame, &slot.pointer.pointee)
            result = await strategy.write(r) {
                slot.pointer.pointee.entered(asked)
                slot.pointer.pointee.publish(step: at, .inside, resource: r, write: true)
                return isolated(body, state, &slot.pointer.pointee)
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
