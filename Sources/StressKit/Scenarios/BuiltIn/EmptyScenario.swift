/// `empty`: two roles that do nothing, for the round rate itself: what a
/// round of the harness costs (the roles' calls, the arbitration, the
/// barriers amortised over a stride) with no work in it.
public struct EmptyScenario: Scenario {
    public static let descriptor = ScenarioDescriptor(
        name: "empty",
        summary: "two roles that do nothing: the harness's own cost per round"
    )

    /// Nothing.
    public final class State: Sendable {}

    public init(parameters: WorkloadParameters) throws {}

    public func roles() -> [Role<State>] {
        [Role("first", steps: [.unguarded("nothing") { _, _ in .next }]),
         Role("second", steps: [.unguarded("nothing") { _, _ in .next }])]
    }

    public func makeState() -> State { State() }
    public func reset(_ state: State) -> State { state }
    public func arbiter(_ state: State) -> RoundOutcome { RoundOutcome() }
    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}
