@testable import StressCore
import StressKitTestSupport
import XCTest

/// Timed waits under controlled scheduling: the policy may time a wait out
/// while another worker could still run (seeded, replayable, explorable);
/// `off` times one out only when nothing else can run.
final class PolicyTimeoutTests: XCTestCase {
    private typealias Support = ControlledTrialSupport
    private let drops: [String: ParameterValue] = ["variant": .text("drops-late-result")]

    /// A client that drops an answer arriving while it gives up: found only
    /// when the wait times out while the producer is still at work.
    func testAPolicyTimeoutFindsTheDroppedLateAnswer() throws {
        for (policy, seed) in [(FuzzProfile.chaos, UInt64(2)), (.pct, UInt64(5))] {
            let outcome = Support.run("test-timed-wait", drops, strategy: "unsynchronized",
                                      settings: Support.settings(threads: 2, seed: seed, fuzz: policy, ops: 20))
            XCTAssertNil(outcome.stall, outcome.stall?.summary ?? "")
            let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
            XCTAssertGreaterThan(output.violations.count, 0, "\(policy) seed \(seed)")
            XCTAssertTrue(outcome.firstMessage?.contains("was dropped") == true, outcome.firstMessage ?? "none")
            // The trace shows the client's wait timing out, with the producer still to answer.
            let timeouts = output.trace?.filter { $0.kind == .timedOut } ?? []
            XCTAssertTrue(timeouts.contains { $0.worker == 0 && $0.name == "the condition 'timed.result'" }, "\(timeouts)")
        }
    }

    /// First come, first served: a wait times out only once the producer has
    /// nothing left to run, so the late answer is never dropped.
    func testOffTimesAWaitOutOnlyWhenNothingElseCanRun() throws {
        for seed in UInt64(1)...10 {
            for variant in ["early-timeout", "drops-late-result"] {
                let outcome = Support.run("test-timed-wait", ["variant": .text(variant), "producer_ops": .integer(20)],
                                          strategy: "unsynchronized", settings: Support.settings(threads: 2, seed: seed, fuzz: .off, ops: 20))
                XCTAssertNil(outcome.stall, outcome.stall?.summary ?? "")
                let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
                XCTAssertEqual(output.violations.count, 0, "\(variant) seed \(seed): \(outcome.firstMessage ?? "")")
            }
        }
    }

    /// The policy does time waits out early (the check above is not vacuous).
    func testChaosTimesAWaitOutWhileTheProducerCanRun() throws {
        let outcome = Support.run("test-timed-wait", ["variant": .text("early-timeout"), "producer_ops": .integer(20)],
                                  strategy: "unsynchronized", settings: Support.settings(threads: 2, seed: 1, fuzz: .chaos, ops: 20))
        XCTAssertGreaterThan(outcome.output?.violations.count ?? 0, 0, outcome.firstMessage ?? "none")
    }

    /// The schedule of a failure that a policy timeout made, followed under
    /// another policy (`off`, which would never time the wait out itself):
    /// the identical schedule and the same failure.
    func testAScheduleWithAPolicyTimeoutReplaysIdentically() throws {
        let first = Support.run("test-timed-wait", drops, strategy: "unsynchronized",
                                settings: Support.settings(threads: 2, seed: 2, fuzz: .chaos, ops: 20))
        let recorded = try XCTUnwrap(first.output?.schedule.encoded)
        XCTAssertNotNil(first.firstMessage)
        let decisions = try ScheduleEncoding.decode(recorded, workers: 2)
        for _ in 0..<3 {
            let replayed = Support.run("test-timed-wait", drops, strategy: "unsynchronized",
                                       settings: Support.settings(threads: 2, seed: UInt64(2), fuzz: .off, ops: 20, forced: decisions))
            XCTAssertEqual(replayed.output?.schedule.encoded, recorded)
            XCTAssertEqual(replayed.firstMessage, first.firstMessage)
        }
    }

    /// Exploration branches on a timeout as on a preemption: none with no
    /// deviation allowed, the dropped answer with a few.
    func testExplorationTimesAWaitOutAsADeviation() throws {
        for bound in [0, 2] {
            var settings = Support.settings(threads: 2, seed: 1, fuzz: .pct, ops: 1)
            settings.exploration = ExplorationSettings(preemptions: bound, operations: 1)
            let outcome = Support.run("test-timed-wait", drops, strategy: "unsynchronized", settings: settings)
            let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
            let exploration = try XCTUnwrap(output.exploration)
            if bound == 0 {
                XCTAssertEqual(exploration.failed, 0)
                XCTAssertTrue(exploration.complete)
            } else {
                XCTAssertGreaterThan(exploration.failed, 0)
                XCTAssertTrue(output.violations.samples.first?.message.contains("was dropped") == true)
            }
        }
    }
}
