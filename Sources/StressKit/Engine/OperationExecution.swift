import Synchronization

/// How the engine calls one trial's blocking strategy.
struct BlockingAccess: Sendable {
    let strategy: any BlockingStrategy
    /// Set for fire-and-forget writers (``StrategyDescriptor/asynchronousWrites``).
    let deferredWrites: DeferredViolations?

    init(_ strategy: any BlockingStrategy) {
        self.strategy = strategy
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

/// Runs one operation's steps under a blocking strategy, on the calling thread.
/// Returns the result that ended the operation and the index of that step.
@inline(__always)
func execute<State: AnyObject & Sendable>(
    _ operation: Operation<State>, state: State, access: BlockingAccess, frame: inout OpFrame
) -> (StepResult, Int) {
    let strategy = access.strategy
    let steps = operation.steps
    var index = 0
    var result = StepResult.next
    frame.fuzz(.operationStart)
    while index < steps.count {
        let step = steps[index]
        switch step.access {
        case .unguarded:
            frame.publish(step: index, .running)
            result = step.body(state, &frame)
        case .read(let r):
            frame.publish(step: index, .acquiring, resource: r)
            frame.fuzz(.beforeAcquire)
            result = strategy.read(r) {
                frame.publish(step: index, .inside, resource: r)
                return guarded(step, state, &frame)
            }
            frame.fuzz(.afterRelease)
        case .write(let r):
            frame.publish(step: index, .acquiring, resource: r, write: true)
            frame.fuzz(.beforeAcquire)
            if let deferred = access.deferredWrites {
                submit(step, operation: operation.name, resource: r, state: state, frame: frame, strategy: strategy, deferred)
                result = .next
            } else {
                result = strategy.write(r) {
                    frame.publish(step: index, .inside, resource: r, write: true)
                    return guarded(step, state, &frame)
                }
            }
            frame.fuzz(.afterRelease)
        case .nestedWrite(let outer, let inner):
            // A write inside a write, exactly as real code nests them.
            frame.publish(step: index, .acquiring, resource: outer, write: true)
            frame.fuzz(.beforeAcquire)
            result = strategy.write(outer) {
                frame.publish(step: index, .acquiringInner, resource: outer, inner: inner, write: true)
                frame.fuzz(.beforeAcquire)
                let r = strategy.write(inner) {
                    frame.publish(step: index, .insideInner, resource: outer, inner: inner, write: true)
                    return guarded(step, state, &frame)
                }
                frame.fuzz(.beforeRelease)
                return r
            }
            frame.fuzz(.afterRelease)
        }
        if result != .next { break }
        index += 1
    }
    frame.fuzz(.operationEnd)
    frame.publish(step: 0, .betweenOperations)
    return (result, Swift.min(index, steps.count - 1))
}

/// A step body inside its critical section, with the fuzz points just after
/// acquiring and just before releasing.
@inline(__always)
private func guarded<State: AnyObject & Sendable>(_ step: Step<State>, _ state: State, _ frame: inout OpFrame) -> StepResult {
    frame.fuzz(.afterAcquire)
    let result = step.body(state, &frame)
    frame.fuzz(.beforeRelease)
    return result
}

/// Hands a write step to an asynchronous writer. The block gets a copy of the
/// frame; what it changes is lost to later steps, as with any `async` block.
private func submit<State: AnyObject & Sendable>(
    _ step: Step<State>, operation: String, resource: Int, state: State, frame: OpFrame,
    strategy: any BlockingStrategy, _ deferred: DeferredViolations
) {
    let body = step.body, name = step.name
    strategy.submitWrite(resource) {
        var f = frame
        if case .violation(let message) = body(state, &f) {
            deferred.record(ViolationSample(thread: f.thread, operation: operation, step: name, opNumber: f.opNumber,
                                            message: message + " (in an asynchronously submitted write)"))
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
            outcome = await strategy.read(r) {
                var f = entry
                f.publish(step: at, .inside, resource: r)
                return (isolated(body, state, &f), f)
            }
        case .write(let r):
            entry.publish(step: at, .acquiring, resource: r, write: true)
            outcome = await strategy.write(r) {
                var f = entry
                f.publish(step: at, .inside, resource: r, write: true)
                return (isolated(body, state, &f), f)
            }
        case .nestedWrite(let outer, let inner):
            entry.publish(step: at, .acquiring, resource: outer, write: true)
            outcome = await strategy.nestedWrite(outer: outer, inner: inner) {
                var f = entry
                f.publish(step: at, .insideInner, resource: outer, inner: inner, write: true)
                return (isolated(body, state, &f), f)
            }
        }
        frame = outcome.1
        if frame.fuzz.active, step.access != .unguarded { await frame.fuzz.hitInTask(.afterRelease) }
        if outcome.0 != .next {
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
