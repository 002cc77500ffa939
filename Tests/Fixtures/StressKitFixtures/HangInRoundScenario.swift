#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import StressKit
import Synchronization

/// `_hang-in-round` (hidden; a test fixture): a round that never completes because one role
/// never returns, for the harness's own tests of stalled rounds. Role
/// `spinner` loops for ever in its `after_rounds`-th round, using the CPU as a
/// real endless loop does; role `bystander` finishes its part and waits for
/// the round's barrier. The watchdog must call that a `hang` naming each role
/// and where it stands (a stalled round whose waits form a cycle, a
/// deadlock, is `nested-transaction-once`'s `reenter`).
struct HangInRoundScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "_hang-in-round",
        summary: "a role that never returns in one round: the harness's own test of a stalled round",
        parameters: [.integer("after_rounds", "the spinner's round (counted from 0) that never ends", default: 10, range: 0...Int.max)],
        hidden: true
    )

    /// A flag nobody sets, which the spinner's loop reads so that the loop
    /// has an effect the optimizer must keep.
    final class State: Sendable {
        let release = Atomic<Bool>(false)
    }

    let afterRounds: Int

    init(parameters: WorkloadParameters) throws {
        afterRounds = try parameters.integer("after_rounds")
    }

    /// `spinner`, which never returns from its `after_rounds`-th round, and
    /// `bystander`, which does nothing.
    func roles() -> [Role<State>] {
        let afterRounds = self.afterRounds
        return [
            Role("spinner", steps: [.unguarded("spin") { state, frame in
                guard frame.opNumber == afterRounds else { return .next }
                // Yields now and then, as a busy loop on a loaded machine is
                // preempted: the CPU nearly all the time.
                var spins = 0
                while !state.release.load(ordering: .relaxed) {
                    spins &+= 1
                    if spins & 0xFFFF == 0 { sched_yield() } else { stress_cpu_relax() }
                }
                return .next
            }]),
            Role("bystander", steps: [.unguarded("nothing") { _, _ in .next }]),
        ]
    }

    /// One state, reused: nothing in it changes.
    func makeState() -> State { State() }
    /// The same state.
    func reset(_ state: State) -> State { state }
    /// No values: every round that ends is alike.
    func arbiter(_ state: State) -> RoundOutcome { RoundOutcome() }
    /// Every outcome is acceptable: the stall is the point.
    func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}
