import Synchronization

/// How the engine calls one trial's blocking strategy.
struct BlockingAccess: Sendable {
    let strategy: any BlockingStrategy
    /// Set for fire-and-forget writers (``StrategyDescriptor/asynchronousWrites``).
    let deferredWrites: DeferredViolations?
    /// "operation/step" by site id, to name a violation found by a deferred write.
    let labels: [String]

    init(_ strategy: any BlockingStrategy, labels: [String]) {
        self.strategy = strategy
        self.labels = labels
        deferredWrites = type(of: strategy).descriptor.asynchronousWrites ? DeferredViolations() : nil
    }
}

/// Violations reported by write blocks that ran asynchronously, after the
/// worker that submitted them had moved on. Only touched when such a block
/// reports a violation, so the lock is off the normal path.
final class DeferredViolations: Sendable {
    private struct Collected {
        var count = 0
        var samples: [ViolationSample] = []
    }

    private let collected = Mutex(Collected())
    static let sampleLimit = 10

    func record(_ sample: ViolationSample) {
        collected.withLock {
            $0.count += 1
            if $0.samples.count < Self.sampleLimit { $0.samples.append(sample) }
        }
    }

    var report: ViolationReport {
        collected.withLock { ViolationReport(count: $0.count, samples: $0.samples) }
    }
}

/// A worker's operations flattened for the blocking hot loop: each step's access
/// and body only (no names: copying a `Step` would retain its strings), read
/// through a borrowed buffer so that running a step retains nothing.
struct CompiledProgram<State: AnyObject & Sendable>: Sendable {
    struct CompiledStep: Sendable {
        let access: Step<State>.Access
        let body: @Sendable (State, inout OpFrame) -> StepResult
    }

    private let steps: ContiguousArray<CompiledStep>
    private let starts: ContiguousArray<Int>

    init(_ operations: [Operation<State>]) {
        var steps = ContiguousArray<CompiledStep>(), starts = ContiguousArray<Int>()
        for op in operations {
            starts.append(steps.count)
            steps += op.steps.map { CompiledStep(access: $0.access, body: $0.body) }
        }
        starts.append(steps.count)
        self.steps = steps
        self.starts = starts
    }

    /// Calls `body` with a borrowed view of the program.
    func withView<R>(_ body: (View) -> R) -> R {
        steps.withUnsafeBufferPointer { s in starts.withUnsafeBufferPointer { o in body(View(steps: s, starts: o)) } }
    }

    struct View {
        let steps: UnsafeBufferPointer<CompiledStep>
        let starts: UnsafeBufferPointer<Int>
    }
}

/// Runs operation `op` of a compiled program under a blocking strategy, on the
/// calling thread. Returns the result that ended the operation and the index of
/// that step within the operation.
@inline(__always)
func execute<State: AnyObject & Sendable>(
    _ op: Int, _ program: CompiledProgram<State>.View, state: State, access: BlockingAccess, frame: inout OpFrame
) -> (StepResult, Int) {
    let strategy = access.strategy
    let first = program.starts[op]
    let count = program.starts[op + 1] - first
    var index = 0
    var result = StepResult.next
    frame.fuzz(.operationStart)
    while index < count {
        let step = program.steps.baseAddress! + (first + index)
        switch step.pointee.access {
        case .unguarded:
            frame.publish(step: index, .running)
            result = step.pointee.body(state, &frame)
        case .read(let r):
            frame.publish(step: index, .acquiring, resource: r)
            frame.fuzz(.beforeAcquire)
            let asked = frame.askedAt(step: index)
            strategy.read(r) {
                frame.entered(asked)
                frame.publish(step: index, .inside, resource: r)
                result = guarded(step, state, &frame)
            }
            frame.fuzz(.afterRelease)
        case .write(let r):
            frame.publish(step: index, .acquiring, resource: r, write: true)
            frame.fuzz(.beforeAcquire)
            if let deferred = access.deferredWrites {
                submit(step.pointee.body, label: access.labels[frame.siteBase + index], resource: r, state: state,
                       frame: frame, strategy: strategy, deferred)
                result = .next
            } else {
                let asked = frame.askedAt(step: index)
                strategy.write(r) {
                    frame.entered(asked)
                    frame.publish(step: index, .inside, resource: r, write: true)
                    result = guarded(step, state, &frame)
                }
            }
            frame.fuzz(.afterRelease)
        case .nestedWrite(let outer, let inner):
            // A write inside a write, exactly as real code nests them.
            frame.publish(step: index, .acquiring, resource: outer, write: true)
            frame.fuzz(.beforeAcquire)
            let asked = frame.askedAt(step: index)
            strategy.write(outer) {
                frame.entered(asked)
                frame.publish(step: index, .acquiringInner, resource: outer, inner: inner, write: true)
                frame.fuzz(.beforeAcquire)
                let askedInner = frame.askedAt()
                strategy.write(inner) {
                    frame.entered(askedInner)
                    frame.publish(step: index, .insideInner, resource: outer, inner: inner, write: true)
                    result = guarded(step, state, &frame)
                }
                frame.fuzz(.beforeRelease)
            }
            frame.fuzz(.afterRelease)
        }
        // A pattern match, not `!=`: comparing the enum would call its
        // synthesized equality (and copy the message) on every step.
        guard case .next = result else { break }
        index += 1
    }
    frame.fuzz(.operationEnd)
    frame.publish(step: 0, .betweenOperations)
    return (result, Swift.min(index, count - 1))
}

/// A step body inside its critical section, with the fuzz points just after
/// acquiring and just before releasing.
@inline(__always)
private func guarded<State: AnyObject & Sendable>(
    _ step: UnsafePointer<CompiledProgram<State>.CompiledStep>, _ state: State, _ frame: inout OpFrame
) -> StepResult {
    frame.fuzz(.afterAcquire)
    let result = step.pointee.body(state, &frame)
    frame.fuzz(.beforeRelease)
    return result
}

/// Hands a write step to an asynchronous writer. The block gets a copy of the
/// frame; what it changes is lost to later steps, as with any `async` block.
private func submit<State: AnyObject & Sendable>(
    _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult, label: String, resource: Int, state: State,
    frame: OpFrame, strategy: any BlockingStrategy, _ deferred: DeferredViolations
) {
    strategy.submitWrite(resource) {
        var f = frame
        if case .violation(let message) = body(state, &f) {
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
    _ operation: Operation<State>, state: State, strategy: any IsolatingStrategy, frame: inout OpFrame
) async -> (StepResult, Int) {
    let steps = operation.steps
    var index = 0
    if frame.fuzz.active { await frame.fuzz.hitInTask(.operationStart) }
    while index < steps.count {
        let step = steps[index]
        let body = step.body
        if frame.fuzz.active, step.access != .unguarded { await frame.fuzz.hitInTask(.beforeAcquire) }
        let entry = frame
        let at = index
        // The closures are written at each call so they stay non-escaping: their
        // context lives on the task's stack, not the heap.
        let outcome: (StepResult, OpFrame)
        // In the isolated region the frame is a copy that travels back with
        // the result; fuzz points there block the actor's thread, as a slow
        // actor method would, while the points around the `await` suspend the task.
        switch step.access {
        case .unguarded:
            var inside = entry
            inside.publish(step: at, .running)
            outcome = (body(state, &inside), inside)
        case .read(let r):
            entry.publish(step: at, .acquiring, resource: r)
            let asked = entry.askedAt()
            outcome = await strategy.read(r) {
                var f = entry
                f.entered(asked)
                f.publish(step: at, .inside, resource: r)
                return (isolated(body, state, &f), f)
            }
        case .write(let r):
            entry.publish(step: at, .acquiring, resource: r, write: true)
            let asked = entry.askedAt()
            outcome = await strategy.write(r) {
                var f = entry
                f.entered(asked)
                f.publish(step: at, .inside, resource: r, write: true)
                return (isolated(body, state, &f), f)
            }
        case .nestedWrite(let outer, let inner):
            entry.publish(step: at, .acquiring, resource: outer, write: true)
            let asked = entry.askedAt()
            outcome = await strategy.nestedWrite(outer: outer, inner: inner) {
                var f = entry
                f.entered(asked)
                f.publish(step: at, .insideInner, resource: outer, inner: inner, write: true)
                return (isolated(body, state, &f), f)
            }
        }
        frame = outcome.1
        if frame.fuzz.active, step.access != .unguarded { await frame.fuzz.hitInTask(.afterRelease) }
        if case .next = outcome.0 {} else {
            frame.publish(step: 0, .betweenOperations)
            return (outcome.0, index)
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
private func isolated<State: AnyObject & Sendable>(
    _ body: @Sendable (State, inout OpFrame) -> StepResult, _ state: State, _ frame: inout OpFrame
) -> StepResult {
    frame.fuzz(.afterAcquire)
    let result = body(state, &frame)
    frame.fuzz(.beforeRelease)
    return result
}
