/// A team's own actor type as a strategy: one instance per resource, every
/// guarded step an awaited call into it, nested access a hop from one instance
/// to another, exactly as the built-in `actor` strategy does with its own.
/// What it tests is the team's actor as declared: a custom executor (a
/// `DispatchSerialQueue`, a `SerialExecutor` of its own), a global actor
/// isolation, whatever its `unownedExecutor` says.
///
/// Conform the actor (an `init()` and a name), then register it in one line:
///
/// ```swift
/// extension DatabaseActor: StrategyActor {
///     static let strategyName = "database-actor"
/// }
/// registry.register(strategy: ActorAdaptor<DatabaseActor>.self)
/// ```
public protocol StrategyActor: Actor {
    /// The name plans use for this strategy (`strategies: [database-actor]`).
    static var strategyName: String { get }
    /// One line for `stressbench list`. Default: says which type it is.
    static var strategySummary: String { get }
    /// A fresh instance guarding one resource.
    init()
}

extension StrategyActor {
    /// Says which type it is.
    public static var strategySummary: String { "your actor \(Self.self), one per resource" }

    /// Runs `body` isolated to this actor.
    fileprivate func runIsolated<R: Sendable>(_ body: @Sendable () -> R) -> R { body() }

    /// Runs `body` isolated to `inner` from inside this actor: a direct call
    /// when `inner` is this one, else a hop that suspends this actor.
    fileprivate func runNested<R: Sendable>(in inner: Self, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
        hops.insideOuter()
        let result = inner === self ? body() : await inner.runIsolated(body)
        hops.backInOuter()
        return result
    }
}

/// The strategy made from ``StrategyActor`` type `A` (see there).
public final class ActorAdaptor<A: StrategyActor>: IsolatingStrategy, Sendable {
    /// The strategy's descriptor: the actor's ``StrategyActor/strategyName`` and
    /// summary, run as tasks, exclusive (an actor has no shared reads).
    public static var descriptor: StrategyDescriptor {
        StrategyDescriptor(name: A.strategyName, summary: A.strategySummary, execution: .tasks,
                           reentrant: true, sharedReads: false, primitive: .actor)
    }

    private let owners: [A]

    /// Makes one actor per resource.
    /// - Parameter setup: The resources and workers of the trial.
    public init(setup: StrategySetup) throws {
        owners = (0..<setup.resources).map { _ in A() }
    }

    /// Runs `body` on the actor of `resource` (as ``write(_:_:)`` does: an actor
    /// has no shared reads).
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run isolated to its actor.
    /// - Returns: What `body` returns.
    public func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        await owners[resource].runIsolated(body)
    }

    /// Runs `body` on the actor of `resource`.
    /// - Parameters:
    ///   - resource: The resource.
    ///   - body: The work to run isolated to its actor.
    /// - Returns: What `body` returns.
    public func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        await owners[resource].runIsolated(body)
    }

    /// Runs `body` on the actor of `inner`, called from inside the actor of `outer`.
    /// - Parameters:
    ///   - outer: The resource whose actor is entered first.
    ///   - inner: The resource whose actor runs `body`.
    ///   - hops: The fuzz points around the inner hop.
    ///   - body: The work to run isolated to the inner actor.
    /// - Returns: What `body` returns.
    public func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
        await owners[outer].runNested(in: owners[inner], hops, body)
    }
}
