import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A stalled scenario's record says how far its rounds got.
final class ScenarioStallRecordTests: XCTestCase {
    /// `_hang-in-round`'s spinner never returns from its round 10 (counted
    /// from 0): rounds 0 to 9 were completed by every role, so the record
    /// has 10 rounds, whichever side of the barrier the bystander waits on.
    func testAStalledScenarioRecordHasTheRoundsCompletedBeforeTheStall() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - scenario: _hang-in-round
                parameters: { after_rounds: 10 }
                strategies: [pthread-mutex]
                duration: 30s
                warmup: 0
                deadlock_after: 300ms
            """, file: "stall.yaml", registry: TestSupport.registry, options: RunOptions(isolation: TestSupport.childIsolation))
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .hang, WorkloadTestSupport.describe(trial))
        XCTAssertEqual(trial.rounds, 10, WorkloadTestSupport.describe(trial))
        XCTAssertNil(trial.outcomes, "the counts are in the stuck workers' tables")
    }

    /// The rounds come from the workers' counts only, not from another
    /// participant a report lists (the main thread's line).
    func testOnlyTheWorkersCountsMakeTheRounds() {
        var spec = Synthetic.trial(strategy: "pthread-mutex", repetition: 0, opsPerSecond: 1, latencyNs: 10).trial
        spec.threads = 2
        spec.scenario = true
        func worker(_ thread: Int, _ ops: Int) -> StalledWorker {
            StalledWorker(thread: thread, operation: nil, step: nil, phase: "running", description: "", resource: nil, innerResource: nil, completedOps: ops)
        }
        let stall = StallReport(kind: .hang, stalledForNs: 1, workers: [worker(0, 7), worker(1, 8), worker(2, 0)], cycle: nil, summary: "hang")
        XCTAssertEqual(LocalTrial.stalledResult(spec, stall).rounds, 7)
        spec.scenario = nil
        XCTAssertNil(LocalTrial.stalledResult(spec, stall).rounds, "a workload's record has no rounds")
    }
}
