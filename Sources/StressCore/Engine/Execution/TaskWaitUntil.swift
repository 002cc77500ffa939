/// A `waitUntil` step from a task. An actor has no condition to wait on, so
/// the task looks in the isolated region and, while the predicate is false,
/// sleeps between looks (1 µs, doubling to 1 ms): the suspension lets other
/// tasks use the actor meanwhile, as the `await` of real code would.
func waitUntil<State: AnyObject & Sendable>(
    _ step: Step<State>, at: Int, resource r: Int, timeoutNs: Int, state: State, strategy: any IsolatingStrategy, entry: OpFrame
) async -> (StepResult, OpFrame) {
    guard let predicate = step.predicate else { preconditionFailure("a waitUntil step has a predicate") }
    let body = step.body
    let deadline = MonotonicClock.now() &+ UInt64(timeoutNs)
    var frame = entry
    var pause: UInt64 = 1_000
    while true {
        frame.publish(step: at, .acquiring, resource: r, write: true)
        let asked = frame.askedAt()
        let start = frame
        let (result, after): (StepResult?, OpFrame) = await strategy.write(r) {
            var f = start
            f.entered(asked)
            f.publish(step: at, .inside, resource: r, write: true)
            guard predicate(state, &f) else { return (nil, f) }
            return (isolated(body, state, &f), f)
        }
        frame = after
        if let result { return (result, frame) }
        guard MonotonicClock.now() < deadline else {
            return (.violation("waited \(Quantities.format(nanoseconds: UInt64(timeoutNs))) for the condition of step '\(step.name)' "
                               + "on resource \(r), and it never held"), frame)
        }
        if AmbientContext.inTask()?.pointee.control?.current == TrialControl.stop {
            return (.finish, frame)  // the trial is over: nobody is left to make it hold
        }
        frame.publish(step: at, .running)
        try? await Task.sleep(nanoseconds: pause)
        pause = Swift.min(pause * 2, 1_000_000)
    }
}
