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
    while index < steps.count {
        let step = steps[index]
        let result: StepResult
        switch step.access {
        case .unguarded:
            result = step.body(state, &frame)
        case .read(let resource):
            result = strategy.read(resource) { step.body(state, &frame) }
        case .write(let resource):
            if let deferred = access.deferredWrites {
                submit(step, operation: operation.name, resource: resource, state: state, frame: frame, strategy: strategy, deferred)
                result = .next
            } else {
                result = strategy.write(resource) { step.body(state, &frame) }
            }
        case .nestedWrite(let outer, let inner):
            // A write inside a write, exactly as real code nests them.
            result = strategy.write(outer) { strategy.write(inner) { step.body(state, &frame) } }
        }
        if result != .next { return (result, index) }
        index += 1
    }
    return (.next, steps.count - 1)
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
    while index < steps.count {
        let step = steps[index]
        let body = step.body
        let entry = frame
        // The closures are written at each call so they stay non-escaping: their
        // context lives on the task's stack, not the heap.
        let outcome: (StepResult, OpFrame)
        switch step.access {
        case .unguarded:
            var inside = entry
            outcome = (body(state, &inside), inside)
        case .read(let resource):
            outcome = await strategy.read(resource) { var f = entry; return (body(state, &f), f) }
        case .write(let resource):
            outcome = await strategy.write(resource) { var f = entry; return (body(state, &f), f) }
        case .nestedWrite(let outer, let inner):
            outcome = await strategy.nestedWrite(outer: outer, inner: inner) { var f = entry; return (body(state, &f), f) }
        }
        frame = outcome.1
        if outcome.0 != .next { return (outcome.0, index) }
        index += 1
    }
    return (.next, steps.count - 1)
}
