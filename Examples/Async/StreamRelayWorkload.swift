import StressKit

/// The workload that tests ``StreamRelay``: each operation relays a few
/// readings, and the consumer must receive every one, in order.
public struct StreamRelayWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "stream-relay",
        summary: "an AsyncStream between a producer and a slower consumer (Examples/Async)",
        parameters: [
            .choice("variant", "correct, or dropped-element: the stream keeps only the newest element",
                    default: "correct", choices: ["correct", "dropped-element"]),
            .integer("readings", "readings relayed per operation", default: 4, range: 1...1_000),
        ]
    )

    let relay: StreamRelay
    let readings: Int

    public init(parameters: WorkloadParameters) throws {
        relay = StreamRelay(keepsEveryElement: try parameters.text("variant") == "correct")
        readings = try parameters.integer("readings")
    }

    /// The consumer's sink, shared by every worker.
    public final class State: Sendable {
        let sink = ReadingSink()
    }

    public func makeState(threads: Int) -> State { State() }

    public func operations() -> [StressOperation<State>] {
        let relay = relay, readings = readings
        return [
            StressOperation("relay", weight: 1, steps: [
                .awaiting("relay") { state, _ in
                    let received = await relay.relay(readings, to: state.sink)
                    guard received != Array(1...readings) else { return .next }
                    let missing = Set(1...readings).subtracting(received).sorted()
                    return .violation("the consumer got \(received) of 1...\(readings): "
                                      + "reading(s) \(missing.map(String.init).joined(separator: ", ")) dropped by the stream's buffer")
                },
            ]),
        ]
    }
}
