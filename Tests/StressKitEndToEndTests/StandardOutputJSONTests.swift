import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The JSON results written to standard output by `stressbench run`, as a CI
/// step that pipes them reads them.
final class StandardOutputJSONTests: XCTestCase {

    /// `run --json -` writes the results to standard output (the table then
    /// goes to standard error), with the per-cell summary; the schema knows
    /// every key, and accepts keys it does not list.
    func testJSONToStandardOutputWithCells() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("p.yaml").path
        try "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 500\n    warmup: 0s\n    repetitions: 2\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        let r = try TestSupport.cli(["run", plan, "--json", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(r.stdout.utf8))
        XCTAssertEqual(report.cells?.map(\.cell), ["counter/mutex/t1"])
        XCTAssertEqual(report.cells?.first?.samples, 2)
        XCTAssertTrue(report.trials.allSatisfy { ($0.wallNanoseconds ?? 0) > 0 })
        XCTAssertTrue(r.stderr.contains("2 trial(s): 2 passed"), r.stderr)

        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/results.schema.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        XCTAssertFalse(text.contains("\"additionalProperties\": false"), "a file from a later /1 must validate")
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var undocumented: [String] = []
        SchemaWalker(root: schema).check(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)), against: schema, at: "", missing: &undocumented)
        XCTAssertEqual(undocumented, [])
    }
}
