/// `empty`: roles that do nothing (two by default), for the round rate
/// itself: what a round of the harness costs (the roles' calls, the
/// arbitration, the barriers amortised over a stride) with no work in it.
/// Its `roles` parameter gives the cost at a larger meeting, up to
/// ``maxRoles`` workers: a scenario of many roles runs the same way.
package struct EmptyScenario: Scenario {
    /// The most roles `empty` takes (the plan's thread limit without opt-in).
    public static let maxRoles = PlanDefaults.maxThreadsWithoutOptIn

    public static let descriptor = ScenarioDescriptor(
        name: "empty",
        summary: "roles that do nothing: the harness's own cost per round",
        parameters: [.integer("roles", "how many roles (workers), each doing nothing", default: 2, range: 2...maxRoles)]
    )

    /// Nothing.
    public final class State: Sendable {}

    /// How many roles.
    let roleCount: Int

    public init(parameters: WorkloadParameters) throws { roleCount = try parameters.integer("roles") }

    public func roles() -> [Role<State>] {
        let names = roleCount == 2 ? ["first", "second"] : (0..<roleCount).map { "role-\($0)" }
        return names.map { Role($0, steps: [.unguarded("nothing") { _, _ in .next }]) }
    }

    public func makeState() -> State { State() }
    public func reset(_ state: State) -> State { state }
    public func arbiter(_ state: State) -> RoundOutcome { RoundOutcome() }
    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}
