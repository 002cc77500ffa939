import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Sharding covers every trial exactly once with whole cells; merging puts
/// shards back together and refuses what does not belong together.
final class ShardMergeTests: XCTestCase {
    private func matrix() throws -> [TrialSpec] {
        TrialMatrix.expand(try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex, nslock, pthread-mutex]
                threads: [1, 2, 4]
                repetitions: 3
                duration: 100ms
              - workload: bank
                strategies: [mutex, actor]
                threads: [2]
                duration: 1s
                repetitions: 2
            """))
    }

    func testShardsPartitionTheMatrixExactlyOnceWithWholeCells() throws {
        let all = try matrix()
        for count in 1...7 {
            let shards = (1...count).map { TrialShard(index: $0, count: count)!.select(all) }
            let ids = shards.flatMap { $0.map(\.id) }
            XCTAssertEqual(ids.count, all.count, "\(count) shards")
            XCTAssertEqual(Set(ids), Set(all.map(\.id)), "\(count) shards")
            for shard in shards {
                XCTAssertEqual(shard.map(\.index), shard.map(\.index).sorted(), "matrix order within a shard")
            }
            // No cell is split between shards.
            var home: [CellKey: Int] = [:]
            for (i, shard) in shards.enumerated() {
                for t in shard {
                    XCTAssertEqual(home[CellKey(t)] ?? i, i, "cell \(CellKey(t)) split")
                    home[CellKey(t)] = i
                }
            }
        }
    }

    func testShardsAreBalancedByExpectedDuration() throws {
        let all = try matrix()
        let loads = (1...2).map { i in TrialShard(index: i, count: 2)!.select(all).map(TrialDurationEstimate.seconds).reduce(0, +) }
        let total = loads.reduce(0, +)
        // The two long bank cells (2 × 2.25 s each) land on different shards.
        XCTAssertLessThan(abs(loads[0] - loads[1]) / total, 0.15, loads.description)
        XCTAssertEqual(TrialShard(index: 1, count: 2)!.select(all), TrialShard(index: 1, count: 2)!.select(all), "deterministic")
    }

    func testShardSyntax() throws {
        XCTAssertEqual(try TrialShard(parsing: "2/4"), TrialShard(index: 2, count: 4))
        for bad in ["0/4", "5/4", "1/0", "x", "1/2/3", "-1/2", ""] {
            XCTAssertThrowsError(try TrialShard(parsing: bad), bad)
        }
        XCTAssertThrowsError(try TrialShard(parsing: "3")) { error in
            XCTAssertEqual((error as? ShardSyntaxError)?.message, "--shard expects i/n such as 1/4 (shard i of n, counted from 1), got '3'")
        }
    }

    // MARK: - Merge

    private func shardReports() throws -> [(file: String, report: RunReport)] {
        let all = Synthetic.cell(throughputs: [1, 2, 3, 4], latencyNs: [1, 1, 1, 1])
            + Synthetic.cell(throughputs: [5, 6], latencyNs: [1, 1], strategy: "nslock").map { r in
                var r = r
                r.trial.index += 4
                return r
            }
        return [("a.json", Synthetic.report([all[0], all[2], all[4]])), ("b.json", Synthetic.report([all[5], all[1], all[3]]))]
    }

    func testMergeRestoresMatrixOrder() throws {
        let inputs = try shardReports()
        var withGate = inputs
        withGate[0].report.gate = GateReport(thresholds: [], comparison: nil)
        withGate[1].report.interrupted = true
        let merged = try RunReport.merge(withGate)
        XCTAssertEqual(merged.trials.map(\.trial.index), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(merged.plan, "synthetic")
        XCTAssertTrue(merged.interrupted)
        XCTAssertNil(merged.gate, "a gate verdict of one shard says nothing about the whole")
    }

    func testMergeRefusesDuplicatesOtherPlansOtherSchemasAndChangedMatrices() throws {
        let inputs = try shardReports()
        func problems(_ reports: [(file: String, report: RunReport)]) -> [String] {
            do {
                _ = try RunReport.merge(reports)
                return []
            } catch {
                return error.problems
            }
        }
        XCTAssertEqual(problems([inputs[0], inputs[0]]), [
            "trial 'e/mutex/t2/r0' appears in both a.json and a.json (twice): was a shard merged twice?",
            "trial 'e/mutex/t2/r2' appears in both a.json and a.json (twice): was a shard merged twice?",
            "trial 'e/nslock/t2/r0' appears in both a.json and a.json (twice): was a shard merged twice?",
        ])
        var other = inputs[1]
        other.report.plan = "elsewhere"
        XCTAssertEqual(problems([inputs[0], other]), ["b.json is from plan 'elsewhere' but a.json is from plan 'synthetic': merge shards of one plan"])
        var old = inputs[1]
        old.report.schema = "stressbench.results/0"
        XCTAssertEqual(problems([inputs[0], old]), ["b.json: schema 'stressbench.results/0' cannot be merged by this stressbench, which writes 'stressbench.results/1'"])
        var changed = inputs[1]
        changed.report.trials[0].trial.index = 0
        XCTAssertEqual(problems([inputs[0], changed]), ["position 0 of the plan's order is 'e/mutex/t2/r0' in a.json but 'e/nslock/t2/r1' in b.json: the plan changed between the runs"])
        XCTAssertEqual(problems([]), ["nothing to merge: name at least one results file"])
    }

    /// Shards record their slice and the matrix size, so a missing shard (or a
    /// shard cut short) is caught instead of merging into a smaller "whole".
    func testMergeRefusesAnIncompleteSetUnlessAllowed() throws {
        var inputs = try shardReports()
        for i in inputs.indices {
            inputs[i].report.matrixTrials = 6
            inputs[i].report.shard = TrialShard(index: i + 1, count: 3)
        }
        func problems(_ reports: [(file: String, report: RunReport)], allowPartial: Bool = false) -> [String] {
            do {
                _ = try RunReport.merge(reports, allowPartial: allowPartial)
                return []
            } catch {
                return error.problems
            }
        }
        XCTAssertEqual(problems(inputs), [])
        let merged = try RunReport.merge(inputs)
        XCTAssertNil(merged.shard)
        XCTAssertEqual(merged.matrixTrials, 6)

        var partial = inputs[0]
        partial.report.interrupted = true
        XCTAssertEqual(problems([partial]), ["the files hold 3 of the plan's 6 trials: shard(s) 2/3, 3/3 missing; interrupted: a.json (pass --allow-partial to merge them anyway)"])
        XCTAssertEqual(try RunReport.merge([partial], allowPartial: true).trials.count, 3)

        var otherSplit = inputs[1]
        otherSplit.report.shard = TrialShard(index: 2, count: 4)
        XCTAssertEqual(problems([inputs[0], otherSplit]), ["a.json is shard 1/3 but b.json is shard 2/4: merge the shards of one --shard i/n split"])
        var sameShard = inputs[1]
        sameShard.report.shard = inputs[0].report.shard
        XCTAssertEqual(problems([inputs[0], sameShard], allowPartial: true), ["shard 1/3 is in both a.json and b.json: was a shard merged twice?"])
        var bigger = inputs[1]
        bigger.report.matrixTrials = 9
        XCTAssertEqual(problems([inputs[0], bigger]), ["a.json has a matrix of 6 trial(s) but b.json one of 9: the plan changed between the runs"])
    }

    func testShardAndMatrixSizeRoundTripThroughJSON() throws {
        var report = Synthetic.report([])
        report.shard = TrialShard(index: 2, count: 4)
        report.matrixTrials = 12
        let back = try ResultCoding.decoder().decode(RunReport.self, from: ResultCoding.encoder().encode(report))
        XCTAssertEqual(back.shard, TrialShard(index: 2, count: 4))
        XCTAssertEqual(back.matrixTrials, 12)
        let bad = Data(#"{"index": 5, "count": 4}"#.utf8)
        XCTAssertThrowsError(try ResultCoding.decoder().decode(TrialShard.self, from: bad))
    }
}
