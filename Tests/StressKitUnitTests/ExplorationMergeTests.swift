import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `merge` of an exploration split over machines: the shard records of one
/// trial become one record, complete only when every shard came complete.
final class ExplorationMergeTests: XCTestCase {
    private typealias Exploration = ScheduleRecord.Exploration

    /// A results file holding one shard's record of the explored trial.
    private func shardFile(_ exploration: Exploration, outcome: TrialOutcome = .passed) -> (file: String, report: RunReport) {
        var r = Synthetic.trial(experiment: "start-cancel", strategy: "mutex", repetition: 0, opsPerSecond: 1, latencyNs: 1, outcome: outcome)
        r.exploration = exploration
        var report = Synthetic.report([r])
        report.matrixTrials = 1
        return ("shard-\(exploration.shard ?? "all").json", report)
    }

    private func shard(_ text: String, schedules: Int, complete: Bool = true, failed: Int = 0, unpruned: Int? = nil, pruned: Int = 0,
                       coverage: Double? = nil, failing: String? = nil) -> Exploration {
        Exploration(schedules: schedules, failed: failed, complete: complete, bound: 2, schedulesWithoutPruning: unpruned, pruned: pruned,
                    coverage: coverage, shard: text, failingSchedule: failing)
    }

    func testCompleteShardsMergeIntoOneCompleteRecord() throws {
        let merged = try RunReport.merge([
            shardFile(shard("1/2", schedules: 600, unpruned: 1_700, pruned: 1_100)),
            shardFile(shard("2/2", schedules: 604, unpruned: 1_610, pruned: 1_006)),
        ])
        XCTAssertEqual(merged.trials.count, 1, "one record for the trial")
        XCTAssertEqual(merged.trials[0].exploration,
                       Exploration(schedules: 1_204, failed: 0, complete: true, bound: 2, schedulesWithoutPruning: 3_310, pruned: 2_106))
        XCTAssertEqual(ExplorationText.line(try XCTUnwrap(merged.trials[0].exploration)),
                       "explored 1,204 schedules with at most 2 preemptions: 0 failed (complete for this bound); 3,310 without pruning (2,106 skipped as equivalent)")
    }

    func testAShardStoppedByItsBudgetLeavesTheMergeIncomplete() throws {
        let merged = try RunReport.merge([
            shardFile(shard("2/2", schedules: 300, complete: false, unpruned: 500, coverage: 0.5)),
            shardFile(shard("1/2", schedules: 600, pruned: 10)),
        ])
        let e = try XCTUnwrap(merged.trials[0].exploration)
        XCTAssertEqual(e.schedules, 900)
        XCTAssertFalse(e.complete)
        XCTAssertEqual(e.coverage, 0.75, "the shards' mean share")
        XCTAssertNil(e.schedulesWithoutPruning, "shard 1 did not count its own")
        XCTAssertEqual(e.pruned, 10)
        XCTAssertNil(e.shard)
    }

    func testAMissingShardIsNamedAndTheMergeIsNotComplete() throws {
        let files = [shardFile(shard("1/3", schedules: 10)), shardFile(shard("3/3", schedules: 12))]
        let merged = try RunReport.merge(files)
        let e = try XCTUnwrap(merged.trials[0].exploration)
        XCTAssertEqual(e.schedules, 22)
        XCTAssertFalse(e.complete)
        XCTAssertEqual(try XCTUnwrap(e.coverage), 2.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(RunReport.explorationShardNotes(files), [
            "note: trial 'start-cancel/mutex/t2/r0': exploration shard(s) 2/3 missing from the files merged: "
                + "its merged exploration covers 2 of 3 shards and is not complete",
        ])
        XCTAssertEqual(RunReport.explorationShardNotes([shardFile(shard("1/2", schedules: 1)), shardFile(shard("2/2", schedules: 1))]), [])
    }

    /// The first failing shard (by number) gives the failure: its outcome,
    /// trace and failing schedule; the failures are summed.
    func testTheFirstFailingShardGivesTheFailure() throws {
        var failing = shardFile(shard("3/3", schedules: 5, complete: false, failed: 1, failing: "w1:3,w0:2"), outcome: .violated)
        failing.report.trials[0].trace = TraceFixtures.lostUpdate
        var second = shardFile(shard("2/3", schedules: 7, complete: false, failed: 1, failing: "w0:2,w1:3,w0:1"), outcome: .violated)
        second.report.trials[0].trace = TraceFixtures.lockOrderDeadlock
        let merged = try RunReport.merge([failing, shardFile(shard("1/3", schedules: 40)), second])
        let r = merged.trials[0]
        XCTAssertEqual(r.outcome, .violated)
        XCTAssertEqual(r.trace, TraceFixtures.lockOrderDeadlock, "shard 2's, the first failing by number")
        XCTAssertEqual(r.exploration?.failingSchedule, "w0:2,w1:3,w0:1")
        XCTAssertEqual(r.exploration?.failed, 2)
        XCTAssertEqual(r.exploration?.schedules, 52)
        XCTAssertEqual(r.exploration?.complete, false)
    }

    func testShardsThatDoNotBelongTogetherAreRefusedNamingTheFiles() {
        func problems(_ files: [(file: String, report: RunReport)]) -> [String] {
            do {
                _ = try RunReport.merge(files)
                return []
            } catch {
                return error.problems
            }
        }
        var again = shardFile(shard("1/2", schedules: 1))
        again.file = "again.json"
        XCTAssertEqual(problems([shardFile(shard("1/2", schedules: 1)), again]),
                       ["exploration shard 1/2 of trial 'start-cancel/mutex/t2/r0' is in both shard-1/2.json and again.json: was a shard merged twice?"])
        XCTAssertEqual(problems([shardFile(shard("1/2", schedules: 1)), shardFile(shard("2/3", schedules: 1))]).count, 1)
        XCTAssertTrue(problems([shardFile(shard("1/2", schedules: 1)), shardFile(shard("2/3", schedules: 1))])[0].contains("another split"))
        var otherBound = shard("2/2", schedules: 1)
        otherBound.bound = 3
        XCTAssertTrue(problems([shardFile(shard("1/2", schedules: 1)), shardFile(otherBound)]).first?.contains("at most 3 preemptions") == true)
        XCTAssertTrue(problems([shardFile(shard("one", schedules: 1))]).first?.contains("is not i/n") == true)
        var plain = shardFile(shard("1/2", schedules: 1))
        plain.report.trials[0].exploration = nil
        XCTAssertTrue(problems([plain, plain]).first?.contains("appears in both") == true, "an unexplored trial twice is still refused")
    }
}
