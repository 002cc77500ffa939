import StressKit

/// `warm-cache`: one round is a ``WarmCache`` warming itself while a caller
/// overrides its value. The override must win: the outcome is whether the
/// cache ends holding it (`1`) or the warmed value (`0`, forbidden).
///
/// Found by exploration (`--explore preemptions=1` finds it in a few dozen
/// schedules) and missed by free-running stress, whose override is always
/// done before the slow warm-up reaches its check (docs/traces.md has the
/// figures).
struct WarmCacheScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "warm-cache",
        summary: "a self-warming cache races an override that must win. Outcome: override kept",
        parameters: [
            .choice("variant", "correct, or the bug: check-then-publish", default: "correct",
                    choices: ["correct", "check-then-publish"]),
            .integer("work_us", "how long warming computes, in microseconds", default: 20_000, range: 0...1_000_000),
        ]
    )

    /// One round's cache. `@unchecked Sendable`: the cache guards itself;
    /// the arbiter reads it after the round barrier.
    final class State: @unchecked Sendable {
        var cache: WarmCache
        init(_ cache: WarmCache) { self.cache = cache }
    }

    static let overrideValue = 42
    let checkThenPublish: Bool
    let workNanoseconds: UInt64

    init(parameters: WorkloadParameters) throws {
        checkThenPublish = try parameters.text("variant") == "check-then-publish"
        workNanoseconds = UInt64(try parameters.integer("work_us")) * 1_000
    }

    func roles() -> [Role<State>] {
        [
            Role("warm", steps: [.unguarded("warm") { s, _ in s.cache.warm(); return .next }]),
            Role("override", steps: [.unguarded("override") { s, _ in s.cache.override(Self.overrideValue); return .next }]),
        ]
    }

    func makeState() -> State { State(WarmCache(checkThenPublish: checkThenPublish, workNanoseconds: workNanoseconds)) }

    func reset(_ s: State) -> State {
        s.cache = WarmCache(checkThenPublish: checkThenPublish, workNanoseconds: workNanoseconds)
        return s
    }

    func arbiter(_ s: State) -> RoundOutcome { RoundOutcome(s.cache.current == Self.overrideValue ? 1 : 0) }

    func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        outcome[0] == 1 ? .acceptable : .forbidden("the override was lost: the warmed value overwrote it")
    }
}
