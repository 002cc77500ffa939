import StressKit

/// The workload that tests ``ConnectionPool``: each operation acquires a
/// connection, uses it for a moment, and gives it back; the pool must never
/// have more connections open than its maximum.
public struct ConnectionPoolWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "connection-pool",
        summary: "an actor pool that checks its capacity, awaits an open, then adds (Examples/Async)",
        parameters: [
            .choice("variant", "correct, or over-capacity: the capacity check ignores connections being opened",
                    default: "correct", choices: ["correct", "over-capacity"]),
            .integer("maximum", "the pool's maximum of open connections", default: 2, range: 1...1_000),
            .integer("latency_us", "opening a connection takes this long, in microseconds (a Task.sleep)", default: 50, range: 0...1_000_000),
        ]
    )

    let countsOpening: Bool
    let maximum: Int
    let latency: Duration

    public init(parameters: WorkloadParameters) throws {
        countsOpening = try parameters.text("variant") == "correct"
        maximum = try parameters.integer("maximum")
        latency = .microseconds(try parameters.integer("latency_us"))
    }

    /// The pool under test.
    public final class State: Sendable {
        let pool: ConnectionPool

        init(_ pool: ConnectionPool) { self.pool = pool }
    }

    public func makeState(threads: Int) -> State {
        State(ConnectionPool(maximum: maximum, countsOpening: countsOpening, openLatency: latency))
    }

    public func operations() -> [StressOperation<State>] {
        [
            StressOperation("use", weight: 1, steps: [
                .awaiting("acquire") { state, frame in
                    guard let connection = await state.pool.acquire() else { return .finish }
                    frame.r0 = connection
                    let (open, maximum) = (await state.pool.open, state.pool.maximum)
                    return open <= maximum ? .next
                        : .violation("\(open) connections open, over the maximum of \(maximum) "
                                     + "(acquirers checked the capacity while others were still opening)")
                },
                .awaiting("release") { state, frame in
                    await state.pool.release(frame.r0)
                    return .next
                },
            ]),
        ]
    }
}
