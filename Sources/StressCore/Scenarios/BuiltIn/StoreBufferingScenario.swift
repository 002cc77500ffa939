/// `store-buffering` (SB), the litmus test of store-to-load reordering: each
/// role stores 1 to its own location, then loads the other's. Under any
/// interleaving of the two programs at least one load sees a 1; `0, 0` means
/// both loads ran before either store became visible to the other core,
/// which a store buffer does (x86 included). Allowed with relaxed and with
/// acquiring/releasing orderings; sequential consistency forbids it.
package struct StoreBufferingScenario: LitmusScenario {
    public static let descriptor = ScenarioDescriptor(
        litmus: "store-buffering",
        summary: "SB litmus test: x = 1; r0 = y  ||  y = 1; r1 = x. Outcome r0, r1; 0, 0 is store buffering",
        parameters: [LitmusOrdering.parameter]
    )

    /// The ordering of every atomic access.
    let ordering: LitmusOrdering

    init(ordering: LitmusOrdering) { self.ordering = ordering }

    public func roles() -> [Role<LitmusState>] {
        let o = ordering
        return [
            Role("store-x-load-y", steps: [.write("sb") { s, _ in
                s.x.store(1, o)
                s.r0 = s.y.load(o)
                return .next
            }]),
            Role("store-y-load-x", steps: [.write("sb") { s, _ in
                s.y.store(1, o)
                s.r1 = s.x.load(o)
                return .next
            }]),
        ]
    }

    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        guard outcome == RoundOutcome(0, 0) else { return .acceptable }
        let what = "both loads ran before both stores became visible (store buffering)"
        return ordering == .sequentiallyConsistent ? .forbidden(what + ", which sequential consistency forbids") : .interesting(what)
    }
}
