/// What a step reports back to the engine.
public enum StepResult: Sendable, Equatable {
    /// Go on with the operation's next step (or end it, after the last step).
    case next
    /// End the operation here, successfully (for example a withdraw that found
    /// too little money and gave up).
    case finish
    /// An invariant broke. The engine counts it, keeps the first few messages with
    /// the thread, operation, step and op number, and ends the operation.
    case violation(String)
}

/// The access a step asks for: ``Step/Access``.
public enum StepAccess: Sendable, Equatable {
    /// No critical section: work done outside any lock (argument choice, a
    /// decision between two critical sections).
    case unguarded
    /// Shared (reader) access to resource `n`.
    case read(Int)
    /// Exclusive (writer) access to resource `n`.
    case write(Int)
    /// Exclusive access to `outer`, then, while still holding it, to `inner`:
    /// a transaction inside a transaction when both are the same resource (it
    /// deadlocks under a non-recursive lock), a lock-order pattern when they differ.
    case nestedWrite(outer: Int, inner: Int)
}

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

    /// A step with an explicit access.
    public init(_ name: String, access: Access, body: @escaping @Sendable (State, inout OpFrame) -> StepResult) {
        self.name = name
        self.access = access
        self.body = body
        self.kernel = nil
    }

    /// A step whose body is `kernel`: the same step as one made from a closure
    /// that calls `kernel.run`, but one the engine can compile into its
    /// measured loop (see ``StepKernel``).
    public init<K: StepKernel>(_ name: String, access: Access, kernel: K) where K.State == State {
        self.name = name
        self.access = access
        self.body = { state, frame in kernel.run(state, &frame) }
        self.kernel = kernel
    }

    /// A step outside any critical section.
    public static func unguarded(_ name: String, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult) -> Step {
        Step(name, access: .unguarded, body: body)
    }

    /// A step under shared (reader) access to `resource`.
    public static func read(_ name: String, resource: Int = 0, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult) -> Step {
        Step(name, access: .read(resource), body: body)
    }

    /// A step under exclusive (writer) access to `resource`.
    public static func write(_ name: String, resource: Int = 0, _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult) -> Step {
        Step(name, access: .write(resource), body: body)
    }

    /// A step outside any critical section, whose body is `kernel`.
    public static func unguarded<K: StepKernel>(_ name: String, kernel: K) -> Step where K.State == State {
        Step(name, access: .unguarded, kernel: kernel)
    }

    /// A step under shared (reader) access to `resource`, whose body is `kernel`.
    public static func read<K: StepKernel>(_ name: String, resource: Int = 0, kernel: K) -> Step where K.State == State {
        Step(name, access: .read(resource), kernel: kernel)
    }

    /// A step under exclusive (writer) access to `resource`, whose body is `kernel`.
    public static func write<K: StepKernel>(_ name: String, resource: Int = 0, kernel: K) -> Step where K.State == State {
        Step(name, access: .write(resource), kernel: kernel)
    }

    /// A step that takes `outer` exclusively and then `inner` inside it.
    public static func nestedWrite(
        _ name: String, outer: Int = 0, inner: Int = 0,
        _ body: @escaping @Sendable (State, inout OpFrame) -> StepResult
    ) -> Step {
        Step(name, access: .nestedWrite(outer: outer, inner: inner), body: body)
    }
}

/// A named, weighted operation: the unit the engine picks, times and counts.
public struct Operation<State: AnyObject & Sendable>: Sendable {
    /// The operation's name (unique within a workload), used in reports and final checks.
    public let name: String
    /// The relative weight with which a worker picks it; 0 disables it.
    public let weight: Double
    /// The steps, run in order.
    public let steps: [Step<State>]

    /// An operation made of `steps`, picked with relative `weight`.
    public init(_ name: String, weight: Double, steps: [Step<State>]) {
        self.name = name
        self.weight = weight
        self.steps = steps
    }
}
