/// `actor`: one Swift actor per resource owns it; every access is an awaited call
/// to an actor-isolated method, from one task per worker.
///
/// Actors serialise their isolated code but are reentrant across suspension: a
/// call into another actor from inside one suspends the first, which can then run
/// other work. So nested access never deadlocks, and atomicity ends at every
/// `await`. Fairness follows the executor's FIFO job queue.
package final class ActorStrategy: IsolatingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "actor",
        summary: "a Swift actor per resource; workers are tasks awaiting isolated methods",
        execution: .tasks, reentrant: true, sharedReads: false, primitive: .actor
    )

    /// The actor that owns one resource.
    actor Owner {
        func run<R: Sendable>(_ body: @Sendable () -> R) -> R { body() }

        /// Runs `body` isolated to `inner` while this actor is in the middle of a
        /// call: a direct call when `inner` is this actor (no hop, no deadlock),
        /// else a hop that suspends this actor, exactly as real nested actor calls do.
        func runNested<R: Sendable>(in inner: Owner, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
            hops.insideOuter()
            let result = inner === self ? body() : await inner.run(body)
            hops.backInOuter()
            return result
        }
    }

    private let owners: [Owner]
    /// Resource 0's actor (the only resource of most workloads) in a stored
    /// `let` of its own: the compiler borrows it across the `await` from this
    /// strategy, which the caller keeps alive, where an element of `owners`
    /// is retained and released around every call (about a tenth of an
    /// operation's time in the measured task loop).
    private let first: Owner

    public init(setup: StrategySetup) throws {
        owners = (0..<setup.resources).map { _ in Owner() }
        first = owners.first ?? Owner()
    }

    public func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        if resource == 0 { return await first.run(body) }
        return await owners[resource].run(body)
    }

    public func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        if resource == 0 { return await first.run(body) }
        return await owners[resource].run(body)
    }

    public func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
        await owners[outer].runNested(in: owners[inner], hops, body)
    }
}
