@testable import StressCore
import StressKitTestSupport
import XCTest

/// Scenarios under controlled scheduling: every round an execution of its
/// own, the barriers met in the model, and the bugs found and replayed.
final class ControlledScenarioTests: XCTestCase {
    private typealias Support = ControlledTrialSupport

    func testScenarioBugsAreFoundAndReplayIdentically() throws {
        let cases: [(scenario: String, variant: String, strategy: String)] = [
            ("operation-start-cancel", "cancel-finishes", "pthread-mutex"),
            ("operation-start-cancel", "cancel-finishes", "serial-queue"),
            ("lazy-init-race", "check-then-create", "rwlock"),
            ("lazy-init-race", "check-then-create", "rw-queue"),
            ("lazy-init-race", "publish-before-initialize", "rwlock"),
        ]
        for c in cases {
            let settings = Support.settings(threads: 2, seed: 21, fuzz: .pct)
            let first = Support.run(c.scenario, ["variant": .text(c.variant)], strategy: c.strategy, settings: settings, scenario: true)
            let output = try XCTUnwrap(first.output, "\(c): \(String(describing: first.error)) \(first.stall?.summary ?? "")")
            XCTAssertGreaterThan(output.violations.count, 0, "\(c)")
            let again = Support.run(c.scenario, ["variant": .text(c.variant)], strategy: c.strategy, settings: settings, scenario: true)
            XCTAssertEqual(again.output?.schedule.encoded, output.schedule.encoded, "\(c)")
            XCTAssertEqual(again.firstMessage, first.firstMessage, "\(c)")
        }
    }

    func testCorrectScenariosShowNothingUnderControl() throws {
        for (scenario, strategy) in [("operation-start-cancel", "pthread-mutex"), ("operation-start-cancel", "serial-queue"),
                                     ("lazy-init-race", "rwlock"), ("lazy-init-race", "rw-queue")] {
            for (seed, policy) in [(1, FuzzProfile.off), (2, .yield), (3, .pct), (4, .chaos)] {
                let outcome = Support.run(scenario, ["variant": .text("correct")], strategy: strategy,
                                          settings: Support.settings(threads: 2, seed: UInt64(seed), fuzz: policy, maxDecisions: 5_000), scenario: true)
                XCTAssertNil(outcome.stall, "\(scenario) \(strategy) \(policy): \(outcome.stall?.summary ?? "")")
                XCTAssertEqual(outcome.output?.violations.count, 0, "\(scenario) \(strategy) \(policy): \(outcome.firstMessage ?? "") \(String(describing: outcome.error))")
                XCTAssertGreaterThan(outcome.output?.rounds?.rounds ?? 0, 10, "\(scenario) \(strategy) \(policy)")
            }
        }
    }
}
