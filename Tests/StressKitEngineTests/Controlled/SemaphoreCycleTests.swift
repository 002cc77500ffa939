@testable import StressCore
import StressKitTestSupport
import XCTest

/// Semaphores have no owner under control: a cycle through two of them
/// that a third worker's signals end is no deadlock; without those signals,
/// the same cycle is one, found once every worker is stuck.
final class SemaphoreCycleTests: XCTestCase {
    private func run(third: String, policy: FuzzProfile, seed: UInt64) -> ControlledTrialSupport.Outcome {
        ControlledTrialSupport.run("test-semaphore-hand-off", ["third": .text(third)], strategy: "unsynchronized",
                                   settings: ControlledTrialSupport.settings(threads: 3, seed: seed, fuzz: policy, ops: 1))
    }

    func testSemaphoresSignalledByAThirdWorkerAreNeverADeadlock() throws {
        for policy in [FuzzProfile.chaos, .pct, .yield] {
            var cycles = 0
            for seed in UInt64(1)...20 {
                let outcome = run(third: "signals", policy: policy, seed: seed)
                XCTAssertNil(outcome.stall, "\(policy) seed \(seed): \(outcome.stall?.summary ?? "")")
                XCTAssertEqual(outcome.output?.violations.count, 0, "\(String(describing: outcome.error))")
                // The same seeds with nobody to signal: a deadlock whenever
                // the schedule closes the cycle, so the policy does reach it.
                if let stall = run(third: "idle", policy: policy, seed: seed).stall {
                    XCTAssertEqual(stall.kind, .deadlock, stall.summary)
                    cycles += 1
                }
            }
            // PCT's strict priorities let one of the two take both first in
            // these 20 seeds; the random walks close the cycle.
            if policy != .pct { XCTAssertGreaterThan(cycles, 0, "\(policy): no seed closed the cycle") }
        }
    }

    /// Two workers close a cycle through the semaphores while a third goes
    /// on: the closing wait stops the trial, and once the third has ended
    /// the scheduler reports the deadlock with its cycle, at a decision the
    /// schedule fixes (before, control ended at the last decision and the
    /// watchdog found it after its wall-clock bound, with a message that
    /// depended on timing). A rerun of the seed gives the same message.
    func testACycleOfTwoWhileAThirdGoesOnIsFoundByTheSchedulerWithTheSameMessage() throws {
        for policy in [FuzzProfile.yield, .chaos] {
            var cycles = 0
            for seed in UInt64(1)...10 {
                let settings = ControlledTrialSupport.settings(threads: 3, seed: seed, fuzz: policy, maxDecisions: 5_000)
                let first = ControlledTrialSupport.run("test-semaphore-hand-off", ["third": .text("busy")], strategy: "unsynchronized",
                                                       settings: settings)
                guard let stall = first.stall else { continue }
                cycles += 1
                XCTAssertEqual(stall.kind, .deadlock, stall.summary)
                XCTAssertTrue(stall.summary.hasPrefix("deadlock: worker 0, worker 1 can never go on"), stall.summary)
                XCTAssertTrue(stall.summary.contains("found at once by controlled scheduling"), stall.summary)
                let cycle = (stall.cycle ?? []).joined(separator: "; ")
                XCTAssertTrue(cycle.contains("the semaphore 'hand-off.first'") && cycle.contains("the semaphore 'hand-off.second'"), cycle)
                let again = ControlledTrialSupport.run("test-semaphore-hand-off", ["third": .text("busy")], strategy: "unsynchronized",
                                                       settings: settings)
                XCTAssertEqual(again.stall?.summary, stall.summary, "\(policy) seed \(seed)")
                XCTAssertEqual(again.stall?.schedule?.encoded, stall.schedule?.encoded, "\(policy) seed \(seed)")
            }
            XCTAssertGreaterThan(cycles, 0, "\(policy): no seed closed the cycle")
        }
    }
}
