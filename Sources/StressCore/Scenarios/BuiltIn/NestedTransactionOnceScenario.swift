/// `nested-transaction-once`: a transaction within a transaction, once per
/// round. One role's update calls, from inside its critical section, a
/// method that takes the same lock again (a public locking method called from
/// a private one); the other role updates once. The outcome is the counter
/// after both (`2`).
///
/// Variants:
/// - `correct`: the inner call uses the unlocked helper the outer one holds
///   the lock for: it passes under every strategy.
/// - `reenter`: the inner call takes the lock again: a deadlock, or a trap
///   where the primitive notices, under every non-recursive strategy; it
///   passes under recursive locks and actors, as real code would.
package struct NestedTransactionOnceScenario: Scenario {
    public static let descriptor = ScenarioDescriptor(
        name: "nested-transaction-once",
        summary: "a transaction within a transaction, one-shot: the inner call re-enters the lock or not. Outcome the counter (2)",
        parameters: [.choice("variant", "correct, or the bug: reenter", default: "correct", choices: ["correct", "reenter"])]
    )

    /// A counter the strategy guards.
    public final class State: @unchecked Sendable {
        var counter = 0
    }

    let reenter: Bool

    public init(parameters: WorkloadParameters) throws {
        reenter = try parameters.text("variant") == "reenter"
    }

    public func roles() -> [Role<State>] {
        let update: @Sendable (State, inout OpFrame) -> StepResult = { s, _ in
            s.counter += 1
            return .next
        }
        let nested = reenter ? Step<State>.nestedWrite("update-and-audit", outer: 0, inner: 0, update) : .write("update-and-audit", update)
        return [Role("transaction", steps: [nested]), Role("update", steps: [.write("update", update)])]
    }

    public func makeState() -> State { State() }

    public func reset(_ s: State) -> State {
        s.counter = 0
        return s
    }

    public func arbiter(_ s: State) -> RoundOutcome { RoundOutcome(s.counter) }

    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        outcome[0] == 2 ? .acceptable : .forbidden("the counter is \(outcome[0]) after two updates (an update was lost)")
    }
}
