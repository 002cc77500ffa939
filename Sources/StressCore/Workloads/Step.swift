/// One step of an operation: a body that runs under a stated kind of access to
/// the workload's shared state.
///
/// Operations are written as steps, not as free-form code, so that one workload
/// runs unchanged under blocking strategies (locks, queues: the engine calls the
/// body inside `read`/`write` on an OS thread) and isolating ones (actors: the
/// engine awaits the region from a task). The boundary between two steps is where
/// a real program would leave one critical section and enter the next, so a bug
/// that splits a read-modify-write across two steps is a real bug under every
/// strategy, and fuzzing and the watchdog can see exactly where each worker is.
public struct Step<State: AnyObject & Sendable>: Sendable {
    /// The access a step asks for (one type for every workload's state).
    public typealias Access = StepAccess

    /// The step's name, shown in violation messages and deadlock reports.
    public let name: String
    /// The access the body runs under.
    public let access: Access
    /// The body. It receives the shared state and the worker's frame.
    public let body: @Sendable (State, inout OpFrame) -> StepResult
    /// The body as a ``StepKernel``, when the step was made from one (the same
    /// function as ``body``): the engine can then compile it into its loop.
    public let kernel: (any StepKernel)?
    /// The condition a ``StepAccess/waitUntil(_:timeoutNs:)`` step waits for; nil for other steps.
    public let predicate: (@Sendable (State, inout OpFrame) -> Bool)?
    /// The `async` body of a ``StepAccess/awaiting`` step (``awaiting(_:_:)``); nil for other steps.
    public let asyncBody: (@Sendable (State, inout OpFrame) async -> StepResult)?

    /// A step with an explicit access.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - access: What the strategy guards the body with.
    ///   - body: The step's work; it returns what the worker does next.
    public init(_ name: String, access: Access, body: @escaping @Sendable (State, inout OpFrame) -> StepResult) {
        self.name = name
        self.access = access
        self.body = body
        self.kernel = nil
        self.predicate = nil
        self.asyncBody = nil
    }

    /// A step with an explicit access and the predicate a `waitUntil` step waits for.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - access: What the strategy guards the body with (a ``StepAccess/waitUntil(_:timeoutNs:)``).
    ///   - predicate: The condition to wait for, checked under the access.
    ///   - body: The step's work once `predicate` holds.
    public init(
        _ name: String, access: Access, predicate: @escaping @Sendable (State, inout OpFrame) -> Bool,
        body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) {
        self.name = name
        self.access = access
        self.body = body
        self.kernel = nil
        self.predicate = predicate
        self.asyncBody = nil
    }

    /// A step whose body is `kernel`: the same step as one made from a closure
    /// that calls `kernel.run`, but one the engine can compile into its
    /// measured loop (see ``StepKernel``).
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - access: What the strategy guards the kernel with.
    ///   - kernel: The step's work.
    public init<K: StepKernel>(_ name: String, access: Access, kernel: K) where K.State == State {
        self.name = name
        self.access = access
        // The general loop (fuzzing, controlled) runs the kernel with its
        // fuzz points; the loops compiled for speed call `run` on `kernel`.
        self.body = { state, frame in kernel.runWithFuzzPoints(state, &frame) }
        self.kernel = kernel
        self.predicate = nil
        self.asyncBody = nil
    }

    /// A step whose body is `async`: it awaits the code under test, outside
    /// any critical section of the strategy (the team's own actors and
    /// continuations do their own synchronization). An operation may mix such
    /// steps with the synchronous kinds, which still go through the strategy.
    /// A workload with one runs its workers as tasks under every strategy
    /// (see docs/async.md); `body` is never called from an OS thread the
    /// harness would have to block. Its access is ``StepAccess/awaiting``.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - body: The step's work; it may `await`, and returns what the worker does next.
    /// - Returns: The step.
    public static func awaiting(_ name: String, _ body: @escaping @Sendable (State, inout OpFrame) async -> StepResult) -> Step {
        Step(name, asyncBody: body)
    }

    private init(_ name: String, asyncBody: @escaping @Sendable (State, inout OpFrame) async -> StepResult) {
        self.name = name
        self.access = .awaiting
        self.body = { _, _ in preconditionFailure("an async step's body runs only through asyncBody") }
        self.kernel = nil
        self.predicate = nil
        self.asyncBody = asyncBody
    }

    /// A step outside any critical section.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - body: The step's work; it returns what the worker does next.
    /// - Returns: The step.
    public static func unguarded(_ name: String, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult) -> Step {
        Step(name, access: .unguarded, body: body)
    }

    /// A step under shared (reader) access to `resource`.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource read.
    ///   - body: The step's work; it returns what the worker does next.
    /// - Returns: The step.
    public static func read(_ name: String, resource: Int = 0, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult) -> Step {
        Step(name, access: .read(resource), body: body)
    }

    /// A step under exclusive (writer) access to `resource`.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource written.
    ///   - body: The step's work; it returns what the worker does next.
    /// - Returns: The step.
    public static func write(_ name: String, resource: Int = 0, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult) -> Step {
        Step(name, access: .write(resource), body: body)
    }

    /// A step outside any critical section, whose body is `kernel`.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - kernel: The step's work.
    /// - Returns: The step.
    public static func unguarded<K: StepKernel>(_ name: String, kernel: K) -> Step where K.State == State {
        Step(name, access: .unguarded, kernel: kernel)
    }

    /// A step under shared (reader) access to `resource`, whose body is `kernel`.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource read.
    ///   - kernel: The step's work.
    /// - Returns: The step.
    public static func read<K: StepKernel>(_ name: String, resource: Int = 0, kernel: K) -> Step where K.State == State {
        Step(name, access: .read(resource), kernel: kernel)
    }

    /// A step under exclusive (writer) access to `resource`, whose body is `kernel`.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource written.
    ///   - kernel: The step's work.
    /// - Returns: The step.
    public static func write<K: StepKernel>(_ name: String, resource: Int = 0, kernel: K) -> Step where K.State == State {
        Step(name, access: .write(resource), kernel: kernel)
    }

    /// A step that takes each of `resources` exclusively, outermost first,
    /// each inside the ones before it, and runs `body` inside them all: two
    /// levels is ``nestedWrite(_:outer:inner:_:)``; up to
    /// ``NestingPath/maxDepth``. Blocking strategies only. Its access is
    /// ``StepAccess/nestedWrites(_:)`` (``StepAccess/nestedWrite(outer:inner:)``
    /// for two levels).
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resources: The resources to take, outermost first.
    ///   - body: The step's work, run holding all of them.
    /// - Returns: The step.
    public static func nestedWrites(
        _ name: String, resources: [Int], _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> Step {
        if resources.count == 2 { return Step(name, access: .nestedWrite(outer: resources[0], inner: resources[1]), body: body) }
        guard let path = NestingPath(resources) else {
            preconditionFailure("Step.nestedWrites '\(name)': give 2 to \(NestingPath.maxDepth) resources, each in 0..<4096 (got \(resources))")
        }
        return Step(name, access: .nestedWrites(path), body: body)
    }

    /// A step that takes `resource` exclusively and keeps it: `body` runs
    /// just after taking it, and the operation's later steps run holding it
    /// until a ``release(_:resource:_:)`` step (or the operation's end, which
    /// gives back whatever it still holds). For hand-over-hand locking, or a
    /// lock held across a decision made in an unguarded step. Needs a
    /// strategy whose access is a lock and an unlock (``HoldingStrategy``):
    /// plans pair the workload only with those.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource to take and keep.
    ///   - body: Work run once it is taken (by default none).
    /// - Returns: The step.
    public static func hold(
        _ name: String, resource: Int = 0, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult = { _, _ in .next }
    ) -> Step {
        precondition((0..<64).contains(resource), "Step.hold '\(name)': a resource held across steps must be in 0..<64 (got \(resource))")
        return Step(name, access: .hold(resource), body: body)
    }

    /// A step that gives back `resource`, taken by an earlier ``hold(_:resource:_:)``
    /// step of the operation; `body` runs just before, still holding it.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource to give back.
    ///   - body: Work run before it is given back (by default none).
    /// - Returns: The step.
    public static func release(
        _ name: String, resource: Int = 0, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult = { _, _ in .next }
    ) -> Step {
        precondition((0..<64).contains(resource), "Step.release '\(name)': a resource held across steps must be in 0..<64 (got \(resource))")
        return Step(name, access: .release(resource), body: body)
    }

    /// A step that waits, with exclusive access to `resource`, until
    /// `predicate` holds, then runs `body` there (a consumer waiting for an
    /// item, a state machine waiting for a state). While the predicate is
    /// false the worker gives the resource back and waits for another
    /// worker's exclusive access to it to end (under the `condition`
    /// strategy, on the strategy's own `NSCondition`; under others, on the
    /// engine's per-resource signal), then checks again. Waiting longer
    /// than `timeout` in all is a violation naming the step.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - resource: The resource the step waits on and then holds exclusively.
    ///   - timeout: How long the step may wait in all before it is a violation.
    ///   - predicate: The condition to wait for, checked with the resource held.
    ///   - body: What runs, still holding the resource, once `predicate` holds.
    /// - Returns: The step.
    public static func waitUntil(
        _ name: String, resource: Int = 0, timeout: Duration = .seconds(1),
        _ predicate: @escaping @Sendable (State, inout OpFrame) -> Bool,
        then body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> Step {
        let nanoseconds = Int(clamping: Quantities.nanoseconds(timeout))
        return Step(name, access: .waitUntil(resource, timeoutNs: Swift.max(1, nanoseconds)), predicate: predicate, body: body)
    }

    /// A step that takes `outer` exclusively and then `inner` inside it.
    ///
    /// - Parameters:
    ///   - name: The step's name, shown in violations and stall reports.
    ///   - outer: The resource taken first.
    ///   - inner: The resource taken inside it.
    ///   - body: The step's work, run holding both.
    /// - Returns: The step.
    public static func nestedWrite(
        _ name: String, outer: Int = 0, inner: Int = 0,
        _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> Step {
        Step(name, access: .nestedWrite(outer: outer, inner: inner), body: body)
    }
}
