/// `load-buffering` (LB): each role loads one location, then stores 1 to the
/// other. `1, 1` means each load saw a store the other role made after its
/// own load: a load satisfied late, after a later store. Allowed by the model
/// with relaxed orderings (and seen on some ARM cores); release/acquire and
/// sequential consistency forbid it; x86-64 never shows it.
package struct LoadBufferingScenario: LitmusScenario {
    public static let descriptor = ScenarioDescriptor(
        litmus: "load-buffering",
        summary: "LB litmus test: r0 = x; y = 1  ||  r1 = y; x = 1. Outcome r0, r1; 1, 1 is load buffering",
        parameters: [LitmusOrdering.parameter]
    )

    /// The ordering of every atomic access.
    let ordering: LitmusOrdering

    init(ordering: LitmusOrdering) { self.ordering = ordering }

    public func roles() -> [Role<LitmusState>] {
        let o = ordering
        return [
            Role("load-x-store-y", steps: [.write("lb") { s, _ in
                s.r0 = s.x.load(o)
                s.y.store(1, o)
                return .next
            }]),
            Role("load-y-store-x", steps: [.write("lb") { s, _ in
                s.r1 = s.y.load(o)
                s.x.store(1, o)
                return .next
            }]),
        ]
    }

    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        guard outcome == RoundOutcome(1, 1) else { return .acceptable }
        let what = "each load saw the store the other role made after its own load (load buffering)"
        return ordering == .relaxed ? .interesting(what + "; allowed with relaxed orderings, never on x86-64")
            : .forbidden(what + ", which release/acquire forbids")
    }
}
