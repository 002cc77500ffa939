/// Runs one operation's steps under a blocking strategy, on the calling thread.
/// Returns the result that ended the operation and the index of that step.
@inline(__always)
func execute<State: AnyObject & Sendable>(
    _ operation: Operation<State>, state: State, strategy: any BlockingStrategy, frame: inout OpFrame
) -> (StepResult, Int) {
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
            result = strategy.write(resource) { step.body(state, &frame) }
        case .nestedWrite(let outer, let inner):
            result = strategy.nestedWrite(outer: outer, inner: inner) { step.body(state, &frame) }
        }
        if result != .next { return (result, index) }
        index += 1
    }
    return (.next, steps.count - 1)
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
