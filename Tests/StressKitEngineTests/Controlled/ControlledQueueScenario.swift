@testable import StressCore

/// `test-controlled-queue-round`: two roles each submit one increment with
/// `StressQueue.async` and never wait for it; the arbiter counts the
/// increments. The round's blocks must have run before the round ends, so
/// the count is always 2 under control.
struct ControlledQueueScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "test-controlled-queue-round", summary: "blocks submitted in a round, counted by its arbiter", parameters: [])

    final class State: @unchecked Sendable {
        // @unchecked: `applied` is written only by the queue's blocks, and
        // read by the arbiter after the round (under control, one at a time).
        let queue = StressQueue(label: "probe.round-queue")
        var applied = 0
    }

    init(parameters: WorkloadParameters) throws {}

    func roles() -> [Role<State>] {
        ["first", "second"].map { name in
            Role(name, steps: [.unguarded("submit") { s, _ in
                s.queue.async { s.applied += 1 }
                return .next
            }])
        }
    }

    func makeState() -> State { State() }
    func arbiter(_ s: State) -> RoundOutcome { RoundOutcome(s.applied) }
    func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        outcome[0] == 2 ? .acceptable : .forbidden("the arbiter saw \(outcome[0]) of the round's 2 blocks run")
    }
}
