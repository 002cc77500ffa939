import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `run --explore` as a user and a CI matrix run it: the exploration's line,
/// and `--shard i/n` splitting each trial's schedule space, whose files
/// `merge` puts back into the record of the whole exploration.
final class ExploreShardMergeTests: XCTestCase {
    private func plan(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("start-cancel.yaml").path
        try """
            name: explore-e2e
            experiments:
              - name: start-cancel
                scenario: operation-start-cancel
                parameters: { variant: correct }
                strategies: [pthread-mutex]
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func report(_ path: String) throws -> RunReport {
        try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testTheShardsOfAnExplorationMergeIntoTheWholeOne() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = try plan(in: dir)
        let whole = dir.appendingPathComponent("whole.json").path
        let r = try TestSupport.cli(["run", plan, "--explore", "preemptions=1", "--json", whole, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("start-cancel/pthread-mutex/t2/r0: explored "), r.stdout)
        XCTAssertTrue(r.stdout.contains(" with at most 1 preemption: 0 failed (complete for this bound)"), r.stdout)
        let all = try XCTUnwrap(report(whole).trials.first?.exploration)
        XCTAssertTrue(all.complete)
        XCTAssertEqual(try report(whole).trials.first?.trial.exploration?.preemptions, 1, "the record says how it ran")
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/results.schema.json")
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var undocumented: [String] = []
        SchemaWalker(root: schema).check(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: whole))),
                                         against: schema, at: "", missing: &undocumented)
        XCTAssertEqual(undocumented, [], "the schema knows the trial's explore and the result's exploration")

        let shard = { (i: Int) in dir.appendingPathComponent("shard-\(i).json").path }
        var schedules = 0
        for i in 1...2 {
            let s = try TestSupport.cli(["run", plan, "--explore", "preemptions=1", "--shard", "\(i)/2", "--json", shard(i), "-q"])
            XCTAssertEqual(s.status, 0, s.stderr)
            XCTAssertTrue(s.stdout.contains("shard \(i)/2: explored "), s.stdout)
            let trials = try report(shard(i)).trials
            XCTAssertEqual(trials.count, 1, "every shard runs every trial")
            XCTAssertEqual(trials[0].exploration?.shard, "\(i)/2")
            schedules += trials[0].exploration?.schedules ?? 0
        }
        XCTAssertEqual(schedules, all.schedules, "the shards split the space between them")
        let merged = dir.appendingPathComponent("merged.json").path
        let m = try TestSupport.cli(["merge", shard(1), shard(2), "-o", merged])
        XCTAssertEqual(m.status, 0, m.stderr)
        let combined = try report(merged).trials
        XCTAssertEqual(combined.count, 1)
        XCTAssertEqual(combined[0].exploration?.schedules, all.schedules)
        XCTAssertEqual(combined[0].exploration?.complete, true)
        XCTAssertNil(combined[0].exploration?.shard)
        XCTAssertNil(combined[0].trial.exploration?.shard, "the merged record's trial covers the whole space")
    }
}
