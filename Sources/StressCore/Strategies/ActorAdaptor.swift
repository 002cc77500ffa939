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
    public static var descriptor: StrategyDescriptor {
        StrategyDescriptor(name: A.strategyName, summary: A.strategySummary, execution: .tasks,
                           reentrant: true, sharedReads: false, primitive: .actor)
    }

    private let owners: [A]

    public init(setup: StrategySetup) throws {
        owners = (0..<setup.resources).map { _ in A() }
    }

    public func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        await owners[resource].runIsolated(body)
    }

    public func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        await owners[resource].runIsolated(body)
    }

    public func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
        await owners[outer].runNested(in: owners[inner], hops, body)
    }
}
