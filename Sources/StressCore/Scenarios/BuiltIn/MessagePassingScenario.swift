/// `message-passing` (MP): one role writes the data, then raises a flag; the
/// other reads the flag, then the data. `1, 0` (flag seen, data not) breaks
/// the publication every "set a flag after the data" idiom relies on. The
/// memory model allows it with relaxed orderings; release/acquire and
/// sequential consistency forbid it. On x86-64 it never shows with any
/// ordering: x86 keeps stores in order and loads in order (TSO). ARM and
/// POWER do reorder, so a relaxed flag that passes here can fail there.
package struct MessagePassingScenario: LitmusScenario {
    public static let descriptor = ScenarioDescriptor(
        litmus: "message-passing",
        summary: "MP litmus test: data = 1; flag = 1  ||  r0 = flag; r1 = data. Outcome r0, r1; 1, 0 is a broken publication",
        parameters: [LitmusOrdering.parameter]
    )

    /// The ordering of every atomic access.
    let ordering: LitmusOrdering

    init(ordering: LitmusOrdering) { self.ordering = ordering }

    public func roles() -> [Role<LitmusState>] {
        let o = ordering
        return [
            // x is the data, y the flag.
            Role("publish", steps: [.write("mp") { s, _ in
                s.x.store(1, ordering: .relaxed)
                s.y.store(1, o)
                return .next
            }]),
            Role("read", steps: [.write("mp") { s, _ in
                s.r0 = s.y.load(o)
                s.r1 = s.x.load(ordering: .relaxed)
                return .next
            }]),
        ]
    }

    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        guard outcome == RoundOutcome(1, 0) else { return .acceptable }
        let what = "the flag was seen but not the data it publishes"
        return ordering == .relaxed
            ? .interesting(what + " (allowed with relaxed orderings; never on x86-64, whose stores and loads stay in order; ARM shows it)")
            : .forbidden(what + ", which release/acquire forbids")
    }
}
