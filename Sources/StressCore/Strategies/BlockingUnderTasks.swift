/// A blocking strategy called from tasks: how a program with `async` steps
/// (whose workers are tasks under every strategy) asks a lock or queue
/// strategy for its synchronous steps. Each access is the strategy's own
/// blocking call, made on the task's thread for the length of one step body,
/// which never suspends: a pool thread waits only as long as a lock is held.
/// Writes a strategy would submit asynchronously are made synchronously here.
final class BlockingUnderTasks: IsolatingStrategy, Sendable {
    static let descriptor = StrategyDescriptor(
        name: "blocking-under-tasks", summary: "a blocking strategy called from task workers",
        execution: .tasks, reentrant: false, sharedReads: false, hidden: true)

    private let strategy: any BlockingStrategy

    init(_ strategy: any BlockingStrategy) { self.strategy = strategy }

    init(setup: StrategySetup) throws {
        throw EngineError("blocking-under-tasks wraps a blocking strategy; it is not made from a plan")
    }

    func read<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        var result: R?
        strategy.read(resource) { result = body() }
        return result!
    }

    func write<R: Sendable>(_ resource: Int, _ body: @Sendable () -> R) async -> R {
        var result: R?
        strategy.write(resource) { result = body() }
        return result!
    }

    func nestedWrite<R: Sendable>(outer: Int, inner: Int, _ hops: NestedHops, _ body: @Sendable () -> R) async -> R {
        var result: R?
        strategy.write(outer) {
            hops.insideOuter()
            strategy.write(inner) { result = body() }
            hops.backInOuter()
        }
        return result!
    }

    func quiesce() async { strategy.quiesce() }

}
