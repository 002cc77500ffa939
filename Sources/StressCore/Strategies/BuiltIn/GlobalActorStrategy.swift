/// The one global actor that every `global-actor` strategy instance (and so
/// every resource of every trial in the process) is isolated to: the
/// stand-in for `@MainActor`.
@globalActor
actor SharedStateActor {
    static let shared = SharedStateActor()
}

/// `global-actor`: all state of every instance isolated to one global actor,
/// the "just put everything on the main actor" model (Siesta, and much
/// SwiftUI-era code, confine all shared state to `@MainActor`).
///
/// Like `actor`, but with a single executor for everything: resources that
/// `actor` would run in parallel are serialised here, and a nested access to
/// another resource needs no hop because it is already on the right actor.
/// It uses its own `@globalActor`, whose jobs run on the cooperative pool,
/// rather than the real `MainActor`, whose executor is the main thread (that
/// is the `main-actor` strategy). Workers are tasks. Reentrant across `await`, like
/// every actor; FIFO in the executor's job queue.
package final class GlobalActorStrategy: IsolatingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "global-actor",
        summary: "one global actor for all state (the 'everything on the main actor' model); workers are tasks",
        execution: .tasks, reentrant: true, sharedReads: false, primitive: .actor, singleDomain: true
    )

    public init(setup: StrategySetup) throws {}

    public func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R { await Self.run(body) }

    public func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R { await Self.run(body) }

    /// One hop onto the actor: `inner` is isolated to the same actor as `outer`,
    /// so the nested access is a plain call once there.
    public func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
        await Self.runNested(hops, body)
    }

    @SharedStateActor
    private static func run<R: Sendable>(_ body: @Sendable () -> R) -> R { body() }

    @SharedStateActor
    private static func runNested<R: Sendable>(_ hops: NestedHops, _ body: @Sendable () -> R) -> R {
        hops.insideOuter()
        let result = body()
        hops.backInOuter()
        return result
    }
}
