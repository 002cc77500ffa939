/// How a strategy's critical sections are entered, which decides how the engine
/// drives workers.
public enum ExecutionModel: String, Sendable, Codable {
    /// Workers are OS threads that block (locks, `DispatchQueue.sync`).
    case threads
    /// Workers are Swift tasks that `await` (actors).
    case tasks
}

/// What `stressbench list` and the matrix know about a strategy.
public struct StrategyDescriptor: Sendable {
    /// The name plans use (`strategies: [pthread-mutex]`).
    public let name: String
    /// One line: what it is and where it comes from.
    public let summary: String
    /// Threads or tasks.
    public let execution: ExecutionModel
    /// Whether a thread (or actor) already inside may enter again without
    /// deadlocking.
    public let reentrant: Bool
    /// Whether readers can be inside at the same time.
    public let sharedReads: Bool
    /// Whether it protects anything (false only for the unsafe control).
    public let synchronizes: Bool
    /// Hidden strategies are left out of `all` and `list`.
    public let hidden: Bool

    /// A descriptor.
    public init(
        name: String, summary: String, execution: ExecutionModel = .threads,
        reentrant: Bool, sharedReads: Bool, synchronizes: Bool = true, hidden: Bool = false
    ) {
        self.name = name
        self.summary = summary
        self.execution = execution
        self.reentrant = reentrant
        self.sharedReads = sharedReads
        self.synchronizes = synchronizes
        self.hidden = hidden
    }
}

/// What a strategy is told when a trial makes it.
public struct StrategySetup: Sendable {
    /// How many independent resources the workload guards (one lock, queue or
    /// actor each); resource indices are `0..<resources`.
    public let resources: Int
    /// How many workers will use it.
    public let threads: Int

    /// A setup.
    public init(resources: Int, threads: Int) {
        self.resources = resources
        self.threads = threads
    }
}

/// A synchronization strategy whose critical sections are entered by blocking
/// OS threads: locks, `DispatchQueue.sync`, reader-writer locks.
///
/// One instance guards all of a trial's resources; every call names the resource.
/// Implement `read` and `write`; `nestedWrite` defaults to a `write` inside a
/// `write`, which is what real code does (and deadlocks where real code does).
public protocol BlockingStrategy: AnyObject, Sendable {
    /// Name, summary and semantics.
    static var descriptor: StrategyDescriptor { get }
    /// Makes the locks or queues for `setup.resources` resources.
    init(setup: StrategySetup) throws
    /// Runs `body` with shared (reader) access to `resource`.
    func read<R>(_ resource: Int, _ body: () -> R) -> R
    /// Runs `body` with exclusive (writer) access to `resource`.
    func write<R>(_ resource: Int, _ body: () -> R) -> R
    /// Runs `body` with exclusive access to `outer` and, inside it, to `inner`.
    func nestedWrite<R>(outer: Int, inner: Int, _ body: () -> R) -> R
    /// Waits until work submitted asynchronously has run; called before final
    /// checks. Default: nothing to wait for.
    func quiesce()
}

extension BlockingStrategy {
    /// A write inside a write, as real code nests them.
    @inline(__always)
    public func nestedWrite<R>(outer: Int, inner: Int, _ body: () -> R) -> R {
        write(outer) { write(inner, body) }
    }

    /// Nothing to wait for.
    public func quiesce() {}
}

/// A synchronization strategy whose critical sections are isolated regions
/// entered with `await` (actors). The engine drives it from Swift tasks.
public protocol IsolatingStrategy: AnyObject, Sendable {
    /// Name, summary and semantics.
    static var descriptor: StrategyDescriptor { get }
    /// Makes the actors for `setup.resources` resources.
    init(setup: StrategySetup) throws
    /// Runs `body` isolated to `resource`, as a reader.
    func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R
    /// Runs `body` isolated to `resource`, as a writer.
    func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R
    /// Runs `body` isolated to `inner` from inside `outer`'s isolation.
    func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ body: @Sendable () -> R) async -> R
    /// Waits until work submitted asynchronously has run. Default: nothing.
    func quiesce() async
}

extension IsolatingStrategy {
    /// Nothing to wait for.
    public func quiesce() async {}
}
