import Dispatch
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import Synchronization
import XCTest

/// Two roles each add one to an actor's count, once per round; the buggy
/// actor reads, awaits, then writes what it read plus one.
private struct AsyncIncrementsScenario: Scenario {
    static let descriptor = ScenarioDescriptor(name: "test-async-increments", summary: "two awaited increments of one actor",
                                               parameters: [.choice("variant", "correct or lost-update", default: "correct",
                                                                    choices: ["correct", "lost-update"])])
    actor Count {
        let awaitsInside: Bool
        var value = 0
        init(awaitsInside: Bool) { self.awaitsInside = awaitsInside }
        func increment() async -> Int {
            let seen = value
            if awaitsInside { await Task.yield() }
            value = seen + 1
            return value
        }
    }

    final class State: @unchecked Sendable {
        // @unchecked: each role writes only its own slot, and the arbiter
        // reads both after the round's roles have ended.
        let count: Count
        var got = [0, 0]
        init(_ count: Count) { self.count = count }
    }

    let buggy: Bool

    init(parameters: WorkloadParameters) throws { buggy = try parameters.text("variant") == "lost-update" }

    func roles() -> [Role<State>] {
        (0..<2).map { who in
            Role(who == 0 ? "first" : "second", steps: [
                .awaiting("add") { state, _ in
                    state.got[who] = await state.count.increment()
                    return .next
                },
            ])
        }
    }

    func makeState() -> State { State(Count(awaitsInside: buggy)) }

    func arbiter(_ state: State) -> RoundOutcome { RoundOutcome(state.got.max() ?? 0) }

    func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        outcome == RoundOutcome(2) ? .acceptable : .forbidden("an increment was lost across the await inside the actor")
    }
}

final class AsyncScenarioTests: XCTestCase {
    /// A scenario's roles may be async: the lost update across an await
    /// inside an actor shows as a forbidden outcome on the deterministic
    /// executor, and the correct actor never shows it.
    func testAsyncRolesOnTheDeterministicExecutor() throws {
        var registry = StressRegistry.builtIn
        registry.register(scenario: AsyncIncrementsScenario.self)
        for variant in ["correct", "lost-update"] {
            let report = try PlanRunner.run(yaml: """
                experiments:
                  - scenario: test-async-increments
                    parameters: {variant: \(variant)}
                    strategies: [unsynchronized]
                    duration: 200ms
                    fuzz: yield
                    executor: deterministic
                    seed: 3
                """, registry: registry)
            let trial = try XCTUnwrap(report.trials.first)
            XCTAssertEqual(trial.outcome, variant == "correct" ? .passed : .violated, WorkloadTestSupport.describe(trial))
            XCTAssertGreaterThan(trial.rounds ?? 0, 10, "rounds ran: \(WorkloadTestSupport.describe(trial))")
        }
    }
}
