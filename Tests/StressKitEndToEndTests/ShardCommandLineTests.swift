import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `stressbench run --shard` and `stressbench merge` as a CI matrix runs them:
/// shards with no trials of their own still write files that merge.
final class ShardCommandLineTests: XCTestCase {
    /// `run PLAN --shard N/N` on a plan with fewer
    /// cells than N exits 0 and writes its files (empty), and `merge` of all
    /// shards exits 0. An empty shard used to say "--only matched no trial"
    /// (no --only was given) and write nothing, so no merge could succeed.
    func testAnEmptyShardWritesAnEmptyMergeableFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("two-cells.yaml").path
        try "experiments:\n  - workload: counter\n    strategies: [mutex, pthread-mutex]\n    threads: 1\n    ops: 100\n    warmup: 0\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        let shard = { (i: Int) in dir.appendingPathComponent("shard-\(i).json").path }
        for i in 1...3 {
            let r = try TestSupport.cli(["run", plan, "--shard", "\(i)/3", "--json", shard(i), "--csv", shard(i) + ".csv", "-q"])
            XCTAssertEqual(r.status, 0, "shard \(i): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("--only"), r.stderr)
            let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: shard(i))))
            XCTAssertEqual(report.shard, TrialShard(index: i, count: 3))
            XCTAssertEqual(report.matrixTrials, 2)
            XCTAssertEqual(report.trials.count, i == 3 ? 0 : 1)
            if i == 3 {
                XCTAssertTrue(r.stderr.contains("note: shard 3/3 has no trials (the plan's 2 cell(s) all went to other shards)"), r.stderr)
                XCTAssertTrue(r.stdout.contains("0 trial(s): none run; exit code 0"), r.stdout)
                XCTAssertEqual(try String(contentsOfFile: shard(i) + ".csv", encoding: .utf8), CSVReport.columns.joined(separator: ",") + "\n")
            }
        }
        let merged = dir.appendingPathComponent("merged.json").path
        let r = try TestSupport.cli(["merge", shard(1), shard(2), shard(3), "-o", merged])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("merged 3 file(s): 2 of 2 trial(s)"), r.stdout)
        // Whichever file comes first, the empty one included.
        XCTAssertEqual(try TestSupport.cli(["merge", shard(3), shard(1), shard(2), "-o", merged]).status, 0)
    }

    /// "--only matched no trial" is kept for an --only that names no trial of
    /// the plan; an --only whose trials all went to other shards is an empty
    /// shard like any other.
    func testOnlyMatchingNothingIsStillAnErrorInAShard() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("two-cells.yaml").path
        try "experiments:\n  - workload: counter\n    strategies: [mutex, pthread-mutex]\n    threads: 1\n    ops: 100\n    warmup: 0\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        let nowhere = try TestSupport.cli(["run", plan, "--shard", "1/3", "--only", "nope", "-q"])
        XCTAssertEqual(nowhere.status, 2, nowhere.stderr)
        XCTAssertTrue(nowhere.stderr.contains("--only matched no trial; ids look like: counter/mutex/t1/r0"), nowhere.stderr)
        let elsewhere = try TestSupport.cli(["run", plan, "--shard", "3/3", "--only", "counter", "-q"])
        XCTAssertEqual(elsewhere.status, 0, elsewhere.stderr)
        XCTAssertTrue(elsewhere.stderr.contains("note: shard 3/3 has no trials (the trials --only selects all went to other shards)"), elsewhere.stderr)
    }
}
