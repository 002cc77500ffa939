/// `lazy-init-race`: two threads ask a lazily initialised property for its
/// instance at the same time, once per round. The factory must run once, and
/// both must get the one instance, complete. The outcome is `factory runs,
/// same instance, both complete` (`1, 1, 1` is the only acceptable one).
///
/// Variants:
/// - `correct`: a fast path reads under shared access; the slow path checks
///   again under exclusive access before it creates and publishes.
/// - `check-then-create`: the slow path trusts the fast path's check, made in
///   another critical section: both create (the factory runs twice, and the
///   two threads hold different instances).
/// - `publish-before-initialize`: the slow path publishes the instance in one
///   critical section and fills it in the next: the other thread can get an
///   instance that is not complete yet.
package struct LazyInitRaceScenario: Scenario {
    public static let descriptor = ScenarioDescriptor(
        name: "lazy-init-race",
        summary: "two threads initialise a lazy property at once: one factory run, one complete instance. Outcome runs, same, complete",
        parameters: [.choice("variant", "correct, or the bug: check-then-create, publish-before-initialize", default: "correct",
                             choices: ["correct", "check-then-create", "publish-before-initialize"])]
    )

    /// The property's storage, and what each thread got (an instance number;
    /// 0 for none) and saw (whether it was complete). `@unchecked Sendable`:
    /// the strategy under test guards it.
    public final class State: @unchecked Sendable {
        /// The published instance's number (0: none yet) and whether its data is there.
        var instance = 0
        var complete = false
        var factoryRuns = 0
        var got = (0, 0)
        var sawComplete = (false, false)
    }

    enum Variant: String { case correct, checkThenCreate = "check-then-create", publishBeforeInitialize = "publish-before-initialize" }
    let variant: Variant

    public init(parameters: WorkloadParameters) throws {
        variant = Variant(rawValue: try parameters.text("variant")) ?? .correct
    }

    /// The steps of `get()` for caller `who`.
    private func get(_ who: Int) -> [Step<State>] {
        let variant = self.variant
        let record: @Sendable (State, Int, Bool) -> Void = { s, instance, complete in
            if who == 0 { (s.got.0, s.sawComplete.0) = (instance, complete) } else { (s.got.1, s.sawComplete.1) = (instance, complete) }
        }
        let fastPath = Step<State>.read("fast-path") { s, frame in
            frame.r0 = s.instance
            guard s.instance != 0 else { return .next }
            record(s, s.instance, s.complete)
            return .finish
        }
        switch variant {
        case .correct:
            return [fastPath, .write("slow-path") { s, _ in
                if s.instance == 0 {
                    s.factoryRuns += 1
                    s.instance = s.factoryRuns
                    s.complete = true
                }
                record(s, s.instance, s.complete)
                return .next
            }]
        case .checkThenCreate:
            return [fastPath, .write("create") { s, frame in
                // The check was made in the fast path's section: stale here.
                if frame.r0 == 0 {
                    s.factoryRuns += 1
                    s.instance = s.factoryRuns
                    s.complete = true
                }
                record(s, s.instance, s.complete)
                return .next
            }]
        case .publishBeforeInitialize:
            return [fastPath, .write("publish") { s, frame in
                guard s.instance == 0 else {
                    record(s, s.instance, s.complete)
                    return .finish
                }
                s.factoryRuns += 1
                s.instance = s.factoryRuns
                frame.r1 = s.instance
                return .next
            }, .write("initialize") { s, frame in
                s.complete = true
                record(s, frame.r1, s.complete)
                return .next
            }]
        }
    }

    public func roles() -> [Role<State>] {
        [Role("get-0", steps: get(0)), Role("get-1", steps: get(1))]
    }

    public func makeState() -> State { State() }

    public func reset(_ s: State) -> State {
        s.instance = 0
        s.complete = false
        s.factoryRuns = 0
        s.got = (0, 0)
        s.sawComplete = (false, false)
        return s
    }

    public func arbiter(_ s: State) -> RoundOutcome {
        RoundOutcome(s.factoryRuns, s.got.0 == s.got.1 && s.got.0 != 0 ? 1 : 0, s.sawComplete.0 && s.sawComplete.1 ? 1 : 0)
    }

    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        if outcome[0] != 1 { return .forbidden("the factory ran \(outcome[0]) times") }
        if outcome[1] != 1 { return .forbidden("the two threads got different instances") }
        if outcome[2] != 1 { return .forbidden("a thread got the instance before it was initialized") }
        return .acceptable
    }
}
