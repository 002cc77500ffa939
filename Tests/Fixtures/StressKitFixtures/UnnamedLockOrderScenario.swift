#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StressKit
import Synchronization

/// `_unnamed-lock-order` (hidden; a test fixture): two roles take two
/// harness-aware locks made without names in opposite orders, each holding
/// its first until the other holds its own: a lock-order deadlock in the
/// first round, every time. The locks are made in one expression, so they
/// share a place in the source and only their ordinal tells them apart in a
/// report ("the StressLock made at ...", "the 2nd StressLock made at ...").
struct UnnamedLockOrderScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "_unnamed-lock-order", summary: "two unnamed StressLocks taken in opposite orders: the harness's own test of naming",
        parameters: [], hidden: true)

    final class State: Sendable {
        let locks = (0..<2).map { _ in StressLock() }
        /// How many roles hold their first lock.
        let holding = Atomic<Int>(0)
    }

    init(parameters: WorkloadParameters) throws {}

    func roles() -> [Role<State>] {
        func takeInOrder(_ first: Int, _ second: Int) -> Step<State> {
            .unguarded("take-\(first)-then-\(second)") { s, _ in
                s.locks[first].lock()
                s.holding.add(1, ordering: .relaxed)
                while s.holding.load(ordering: .relaxed) < 2 { sched_yield() }
                s.locks[second].lock()  // never returns: the other role holds it
                return .next
            }
        }
        return [Role("forward", steps: [takeInOrder(0, 1)]), Role("backward", steps: [takeInOrder(1, 0)])]
    }

    func makeState() -> State { State() }
    /// No values: the stall is the point.
    func arbiter(_ s: State) -> RoundOutcome { RoundOutcome() }
    /// Every outcome is acceptable: the stall is the point.
    func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}
