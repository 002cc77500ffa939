/// `empty`: roles that do nothing (two by default), for the round rate
/// itself: what a round of the harness costs (the roles' calls, the
/// arbitration, the barriers amortised over a stride) with no work in it.
/// Its `roles` parameter gives the cost at a larger meeting, up to
/// ``maxRoles`` workers: a scenario of many roles runs the same way. Its
/// `steps` parameter gives each role that many empty steps, a scheduling
/// point between each two: the controlled scheduler's cost per decision,
/// measured with as many points a round as a real scenario passes.
package struct EmptyScenario: Scenario {
    /// The most roles `empty` takes (the plan's thread limit without opt-in).
    public static let maxRoles = PlanDefaults.maxThreadsWithoutOptIn
    /// The most steps a role of `empty` takes.
    public static let maxSteps = 64

    public static let descriptor = ScenarioDescriptor(
        name: "empty",
        summary: "roles that do nothing: the harness's own cost per round",
        parameters: [.integer("roles", "how many roles (workers), each doing nothing", default: 2, range: 2...maxRoles),
                     .integer("steps", "how many empty steps each role takes a round", default: 1, range: 1...maxSteps)]
    )

    /// Nothing.
    public final class State: Sendable {}

    /// How many roles.
    let roleCount: Int
    /// How many empty steps each role takes.
    let stepCount: Int

    public init(parameters: WorkloadParameters) throws {
        roleCount = try parameters.integer("roles")
        stepCount = try parameters.integer("steps")
    }

    public func roles() -> [Role<State>] {
        let names = roleCount == 2 ? ["first", "second"] : (0..<roleCount).map { "role-\($0)" }
        return names.map { name in
            Role(name, steps: (0..<stepCount).map { _ in .unguarded("nothing") { _, _ in .next } })
        }
    }

    public func makeState() -> State { State() }
    public func reset(_ state: State) -> State { state }
    public func arbiter(_ state: State) -> RoundOutcome { RoundOutcome() }
    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}
