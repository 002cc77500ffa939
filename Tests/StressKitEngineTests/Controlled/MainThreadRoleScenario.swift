import Foundation
@testable import StressCore

/// A scenario with a role on the main thread (``Role/onMainThread``): the
/// other role counts under a lock; the main role checks it runs on the main
/// thread and counts under the same lock. Variant `sync-holding-lock`: the
/// other role `sync`s to main while it holds the lock, which the main role
/// waits for (a deadlock).
struct MainThreadRoleScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "test-main-thread-role", summary: "a role on the main thread beside a role on a worker",
        parameters: [.choice("variant", "correct, or the bug: sync-holding-lock", default: "correct",
                             choices: ["correct", "sync-holding-lock"])]
    )

    final class State: @unchecked Sendable {
        // @unchecked: the lock guards `count`; `offMain` is written by the
        // main role only, and read by the arbiter after the round.
        let lock = StressLock(name: "role.lock")
        var count = 0
        var offMain = false
    }

    let syncHoldingLock: Bool

    init(parameters: WorkloadParameters) throws { syncHoldingLock = try parameters.text("variant") == "sync-holding-lock" }

    func roles() -> [Role<State>] {
        let syncHoldingLock = self.syncHoldingLock
        return [
            Role("worker", steps: [.unguarded("count") { s, _ in
                s.lock.withLock {
                    s.count += 1
                    if syncHoldingLock { StressQueue.main.sync { fuzzPoint() } }
                }
                return .next
            }]),
            Role("ui", onMainThread: true, steps: [.unguarded("count") { s, _ in
                if !Thread.isMainThread { s.offMain = true }
                s.lock.withLock { s.count += 1 }
                return .next
            }]),
        ]
    }

    func makeState() -> State { State() }

    func reset(_ state: State) -> State {
        state.count = 0
        state.offMain = false
        return state
    }

    func arbiter(_ state: State) -> RoundOutcome { RoundOutcome(state.count, state.offMain ? 1 : 0) }

    func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        outcome == RoundOutcome(2, 0) ? .acceptable : .forbidden("count \(outcome): a role was lost, or the ui role ran off the main thread")
    }
}
