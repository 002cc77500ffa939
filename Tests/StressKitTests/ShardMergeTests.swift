import Foundation
@testable import StressKit
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
        XCTAssertEqual(problems([inputs[0], changed]), ["matrix position 0 is 'e/mutex/t2/r0' in a.json but 'e/nslock/t2/r1' in b.json: the plan changed between the runs"])
        XCTAssertEqual(problems([]), ["nothing to merge: name at least one results file"])
    }
}
