/// How a strategy's critical sections are entered, which decides how the engine
/// drives workers.
public enum ExecutionModel: String, Sendable, Codable {
    /// Workers are OS threads that block (locks, `DispatchQueue.sync`).
    case threads
    /// Workers are Swift tasks that `await` (actors).
    case tasks
}

/// What a strategy's critical sections are made of; it sets the words deadlock
/// reports use ("waiting to acquire the lock", "waiting for the queue", ...).
public enum SyncPrimitive: String, Sendable, Codable {
    /// A lock a thread acquires and releases.
    case lock
    /// A dispatch queue a block is submitted to.
    case queue
    /// An actor a task hops to.
    case actor
    /// The main queue: every section runs on the main thread.
    case mainQueue
    /// A semaphore used as a lock.
    case semaphore
    /// Atomic operations, no critical section.
    case atomic
    /// Nothing at all: a control that guards nothing.
    case none
}

/// What a worker meets when it asks again for a critical section it is already
/// inside (a nested write on the same resource: the "transaction within a
/// transaction", a public locking method called from a private one).
public enum ReentryBehavior: Sendable, Equatable {
    /// It enters again (recursive locks, actors, and strategies with nothing to
    /// enter).
    case reenters
    /// It blocks for good: the watchdog reports a `deadlock` whose wait-for
    /// cycle has the worker waiting for itself.
    case deadlocks
    /// The primitive notices and traps: the trial is `crashed`. `message` is
    /// what it prints first (the Swift runtime's `Fatal error: ...` line), or nil
    /// when it dies without a word (libdispatch on Linux).
    case traps(message: String?)
}

/// What `stressbench list` and the matrix know about a strategy.
public struct StrategyDescriptor: Sendable {
    /// The name plans use (`strategies: [pthread-mutex]`).
    public let name: String
    /// One line: what it is and where it comes from.
    public let summary: String
    /// Whether its workers are threads or tasks.
    public let execution: ExecutionModel
    /// Whether a thread (or actor) already inside may enter again without
    /// deadlocking.
    public let reentrant: Bool
    /// What re-entering a critical section one holds does, exactly (tests pin
    /// each strategy's outcome of a nested transaction to it).
    public let reentry: ReentryBehavior
    /// Whether readers can be inside at the same time.
    public let sharedReads: Bool
    /// Whether it protects anything (false only for the unsafe control).
    public let synchronizes: Bool
    /// Whether writes are fire-and-forget (`DispatchQueue.async`): the engine then
    /// hands `.write` steps to ``BlockingStrategy/submitWrite(_:_:)``, the step's
    /// changes to the frame are not seen by later steps (as in real code, an async
    /// block cannot return a value), and violations it reports are collected when
    /// the block runs.
    public let asynchronousWrites: Bool
    /// Whether the strategy has no critical sections at all and relies on the
    /// workload's lock-free operations (``Workload/lockFreeOperations()``); such a
    /// strategy only pairs with workloads that provide them.
    public let lockFree: Bool
    /// What its critical sections are made of.
    public let primitive: SyncPrimitive
    /// Whether every resource is guarded by one and the same domain (one global
    /// actor for all state; per-resource queues that all drain on one target
    /// queue): no two resources are ever used at once, and a nested access to
    /// another resource re-enters the domain already held. Where the strategy is
    /// reentrant that is a plain call, so lock-order bugs cannot happen; where
    /// it is not, it is a deadlock of the worker with itself.
    public let singleDomain: Bool
    /// Hidden strategies are left out of `all` and `list`.
    public let hidden: Bool

    /// A descriptor. `reentry` defaults to what `reentrant` and `primitive`
    /// imply: ``ReentryBehavior/reenters`` when reentrant; otherwise
    /// ``ReentryBehavior/traps(message:)`` with no message for a dispatch queue
    /// (libdispatch traps a `sync` onto a queue the thread is already running
    /// on, silently on Linux) and ``ReentryBehavior/deadlocks`` for anything
    /// else. Say it when the primitive traps with a message of its own.
    ///
    /// - Parameters:
    ///   - name: The strategy's name in plans and reports.
    ///   - summary: One line saying what it synchronizes with.
    ///   - execution: Threads, or tasks for an actor strategy.
    ///   - reentrant: Whether a worker may take a resource it already holds.
    ///   - reentry: What happens when it does; nil for what `reentrant` and `primitive` imply.
    ///   - sharedReads: Whether readers run side by side.
    ///   - synchronizes: False for a control that guards nothing (finds the bugs on purpose).
    ///   - asynchronousWrites: Whether writes are submitted to run later (``BlockingStrategy/submitWrite(_:_:)``).
    ///   - lockFree: True for a strategy that runs a workload's lock-free operations.
    ///   - primitive: The kind of primitive it is built on.
    ///   - singleDomain: True when every resource shares one domain (one queue, the main thread).
    ///   - hidden: True to leave it out of `stressbench list` and `all`.
    public init(
        name: String, summary: String, execution: ExecutionModel = .threads,
        reentrant: Bool, reentry: ReentryBehavior? = nil, sharedReads: Bool, synchronizes: Bool = true,
        asynchronousWrites: Bool = false, lockFree: Bool = false, primitive: SyncPrimitive = .lock,
        singleDomain: Bool = false, hidden: Bool = false
    ) {
        self.reentry = reentry ?? (reentrant ? .reenters : primitive == .queue || primitive == .mainQueue ? .traps(message: nil) : .deadlocks)
        self.primitive = primitive
        self.singleDomain = singleDomain
        self.name = name
        self.summary = summary
        self.execution = execution
        self.reentrant = reentrant
        self.sharedReads = sharedReads
        self.synchronizes = synchronizes
        self.asynchronousWrites = asynchronousWrites
        self.lockFree = lockFree
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

    /// The setup of a trial with `resources` resources and `threads` workers.
    /// - Parameters:
    ///   - resources: The number of resources to guard.
    ///   - threads: The number of workers.
    public init(resources: Int, threads: Int) {
        self.resources = resources
        self.threads = threads
    }
}

/// A synchronization strategy whose critical sections are entered by blocking
/// OS threads: locks, `DispatchQueue.sync`, reader-writer locks.
///
/// One instance guards all of a trial's resources; every call names the resource.
/// Implement `read` and `write`. Nested access (``StepAccess/nestedWrite(outer:inner:)``)
/// is a `write` called inside a `write`, exactly as real code nests them, so it
/// deadlocks where real code does. The engine, not the strategy, marks where each
/// worker is (waiting, inside, released), so a strategy is only its locking.
///
/// A team's own lock plugs in the same way (see docs/own-strategies.md): wrap it in a class
/// conforming to this protocol and register it.
public protocol BlockingStrategy: AnyObject, Sendable {
    /// The strategy's name, summary and semantics, as plans and `stressbench list` see them.
    static var descriptor: StrategyDescriptor { get }
    /// Makes the locks or queues for `setup.resources` resources.
    ///
    /// - Parameter setup: The resources and workers of the trial.
    /// - Throws: Any error that keeps the strategy from being made; the trial then ends as `error`.
    init(setup: StrategySetup) throws
    /// Runs `body` with shared (reader) access to `resource`. (Bodies return
    /// nothing: the engine keeps results in variables the closure captures, so
    /// the call is not generic and costs no type metadata per operation.)
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run with shared access.
    func read(_ resource: Int, _ body: () -> Void)
    /// Runs `body` with exclusive (writer) access to `resource`.
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run with exclusive access.
    func write(_ resource: Int, _ body: () -> Void)
    /// Submits `body` to run later with exclusive access to `resource` and returns
    /// at once. Only called when the descriptor says ``StrategyDescriptor/asynchronousWrites``;
    /// the default runs it synchronously through ``write(_:_:)``.
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run later with exclusive access.
    func submitWrite(_ resource: Int, _ body: @escaping @Sendable () -> Void)
    /// Waits until work submitted asynchronously has run; called before final
    /// checks. Default: nothing to wait for.
    func quiesce()
    /// The engine's measured loop, compiled for this strategy's type. Leave it
    /// to the default implementation (see ``_MeasuredLoop``).
    func _runMeasuredLoop(_ loop: _MeasuredLoop)
}

extension BlockingStrategy {
    /// Runs the write synchronously.
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run now with exclusive access.
    public func submitWrite(_ resource: Int, _ body: @escaping @Sendable () -> Void) {
        write(resource, body)
    }

    /// Nothing to wait for.
    public func quiesce() {}
}

/// A synchronization strategy whose critical sections are isolated regions
/// entered with `await` (actors). The engine drives it from Swift tasks.
public protocol IsolatingStrategy: AnyObject, Sendable {
    /// The strategy's name, summary and semantics, as plans and `stressbench list` see them.
    static var descriptor: StrategyDescriptor { get }
    /// Makes the actors for `setup.resources` resources.
    ///
    /// - Parameter setup: The resources and workers of the trial.
    /// - Throws: Any error that keeps the strategy from being made; the trial then ends as `error`.
    init(setup: StrategySetup) throws
    /// Runs `body` isolated to `resource`, as a reader.
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run with shared access.
    /// - Returns: What `body` returns.
    func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R
    /// Runs `body` isolated to `resource`, as a writer.
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run with exclusive access.
    /// - Returns: What `body` returns.
    func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R
    /// Runs `body` isolated to `inner` from inside `outer`'s isolation. Call
    /// `hops.insideOuter()` once inside `outer`, before going to `inner`, and
    /// `hops.backInOuter()` once back in `outer` afterwards: they are the fuzz
    /// points around the inner `await`, where a nested actor call loses its
    /// atomicity.
    ///
    /// - Parameters:
    ///   - outer: The resource entered first.
    ///   - inner: The resource whose isolation runs `body`.
    ///   - hops: The fuzz points around the inner hop.
    ///   - body: The work to run isolated to `inner`.
    /// - Returns: What `body` returns.
    func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R
    /// Waits until work submitted asynchronously has run. Default: nothing.
    func quiesce() async
    /// The engine's measured task loop, compiled for this strategy's type.
    /// Leave it to the default implementation (see ``_MeasuredTaskLoop``).
    func _runMeasuredTaskLoop(_ loop: _MeasuredTaskLoop) async
}

extension IsolatingStrategy {
    /// Nothing to wait for.
    public func quiesce() async {}
}

/// The fuzz points of a nested actor access, handed to
/// ``IsolatingStrategy/nestedWrite(outer:inner:_:_:)``: the perturbations
/// there are decided before the call (every fuzz decision is a function of the
/// worker's seed and the point's index, so deciding early changes nothing) and
/// performed where the strategy calls them. They block the actor's thread, as
/// a slow actor method would; with fuzzing off they do nothing.
public struct NestedHops: Sendable {
    let outerEntry: Perturbation
    let resumed: Perturbation

    /// No perturbation at either point.
    public static let none = NestedHops(outerEntry: .none, resumed: .none)

    /// Inside the outer actor, before the `await` that goes to the inner one.
    public func insideOuter() { Fuzzer.perform(outerEntry) }

    /// Back in the outer actor, after the inner call returned.
    public func backInOuter() { Fuzzer.perform(resumed) }
}
