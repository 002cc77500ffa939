/// `main-actor`: every access isolated to the `@MainActor`; workers are tasks
/// that hop there (the Swift-concurrency form of "everything on the main
/// thread").
///
/// The trial process's main thread serves the main actor (it does nothing
/// else), so every section runs there, one at a time. Like `global-actor`,
/// one domain for every resource: a nested access is a plain call once on
/// the main actor. Reentrant across `await`, like every actor.
package final class MainActorStrategy: IsolatingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "main-actor",
        summary: "every access isolated to @MainActor (the main thread); workers are tasks",
        execution: .tasks, reentrant: true, sharedReads: false, primitive: .actor, singleDomain: true
    )

    public init(setup: StrategySetup) throws {}

    public func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R { await Self.run(body) }

    public func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R { await Self.run(body) }

    /// One hop onto the main actor: the inner access is a plain call there.
    public func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
        await Self.runNested(hops, body)
    }

    @MainActor
    private static func run<R: Sendable>(_ body: @Sendable () -> R) -> R { body() }

    @MainActor
    private static func runNested<R: Sendable>(_ hops: NestedHops, _ body: @Sendable () -> R) -> R {
        hops.insideOuter()
        let result = body()
        hops.backInOuter()
        return result
    }
}
