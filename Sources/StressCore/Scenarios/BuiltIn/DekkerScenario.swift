/// `dekker`: the entry protocol of Dekker's mutual exclusion, one round per
/// attempt: each role raises its own flag, then enters only if the other's
/// flag is down. Both entering (`1, 1`) breaks mutual exclusion, which is
/// forbidden whatever the ordering: it is the algorithm's whole promise. It
/// shows exactly where SB's `0, 0` does, with relaxed and with
/// acquiring/releasing orderings (a store then a load of another location may
/// reorder); only sequentially consistent atomics make the protocol correct.
package struct DekkerScenario: LitmusScenario {
    public static let descriptor = ScenarioDescriptor(
        litmus: "dekker",
        summary: "Dekker-style entry: flag[i] = 1; enter if flag[other] == 0. Outcome entered0, entered1; 1, 1 breaks mutual exclusion",
        parameters: [LitmusOrdering.parameter]
    )

    /// The ordering of every atomic access.
    let ordering: LitmusOrdering

    init(ordering: LitmusOrdering) { self.ordering = ordering }

    public func roles() -> [Role<LitmusState>] {
        let o = ordering
        return [
            // x and y are the two flags; r0 and r1 say whether each role entered.
            Role("enter-0", steps: [.write("entry") { s, _ in
                s.x.store(1, o)
                if s.y.load(o) == 0 { s.r0 = 1 }
                return .next
            }]),
            Role("enter-1", steps: [.write("entry") { s, _ in
                s.y.store(1, o)
                if s.x.load(o) == 0 { s.r1 = 1 }
                return .next
            }]),
        ]
    }

    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        outcome == RoundOutcome(1, 1)
            ? .forbidden("both roles entered the critical section: the entry protocol needs sequentially consistent atomics")
            : .acceptable
    }
}
