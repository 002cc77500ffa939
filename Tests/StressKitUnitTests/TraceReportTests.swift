import Foundation
@testable import StressCore
@testable import StressRunner
@testable import StressKit
import StressKitTestSupport
import XCTest

/// Where a failed controlled trial's interleaving, its shrinking and an
/// exploration's answer show: the terminal, Markdown, JUnit, CSV, the JSON
/// and NDJSON records, and a failing `StressTest`'s message.
final class TraceReportTests: XCTestCase {
    /// Two traced failures and one explored trial that passed.
    private func report() -> RunReport {
        var caught = TraceFixtures.lockOrderResult()
        caught.trial.expect = [.deadlock]
        caught.trial.index = 0
        var first = TraceFixtures.lostUpdateResult()
        first.trial.index = 1
        var explored = Synthetic.trial(experiment: "start-cancel", strategy: "mutex", repetition: 0, index: 2, opsPerSecond: 1, latencyNs: 1)
        explored.exploration = ScheduleRecord.Exploration(schedules: 1_204, failed: 0, complete: true, bound: 2,
                                                          schedulesWithoutPruning: 3_310, pruned: 2_106)
        return Synthetic.report([caught, first, explored])
    }

    /// The terminal draws one trace, the first unexpected failure's, and
    /// counts the others'; every explored trial has its answer.
    func testTheTerminalDrawsTheFirstUnexpectedFailuresTrace() {
        let text = TableReport.render(report())
        XCTAssertTrue(text.contains("""
              schedule: controlled, 6 decisions
              interleaving (2 workers, 1 preemption; shrunk from 4,812 events):
              | worker 0                      | worker 1                      |
            """), text)
        XCTAssertTrue(text.contains("  shrunk from 4,812 events, 3 preemptions to 11 events, 1 preemption (57 candidates replayed)\n"
                                    + "  replay: stressbench replay synthetic.yaml --only counter-lost-update/unsynchronized/t2/r0 --seed 1 --schedule w0:2,w1:3,w0:1"), text)
        XCTAssertEqual(text.components(separatedBy: "interleaving (").count, 2, "one trace drawn")
        XCTAssertTrue(text.contains("  trace: 13 events, 1 preemption, in the JSON results (the report draws the first failure's)"), text)
        XCTAssertTrue(text.contains("start-cancel/mutex/t2/r0: explored 1,204 schedules with at most 2 preemptions: 0 failed (complete for this bound); "
                                    + "3,310 without pruning (2,106 skipped as equivalent)"), text)
    }

    /// Markdown: the same trace in a fenced block inside the trial's item,
    /// the shrink line, and an Exploration section.
    func testMarkdownHasTheTraceInAFencedBlock() {
        let md = MarkdownReport.render(report())
        XCTAssertTrue(md.contains("""
              shrunk from 4,812 events, 3 preemptions to 11 events, 1 preemption (57 candidates replayed)  
              replay: `stressbench replay synthetic.yaml --only counter-lost-update/unsynchronized/t2/r0 --seed 1 --schedule w0:2,w1:3,w0:1`

              ```text
              interleaving (2 workers, 1 preemption; shrunk from 4,812 events):
              | worker 0                      | worker 1                      |
              | increment()                   |                               |
            """), md)
        XCTAssertTrue(md.contains("|   write count = 1  Counter:42 |                               |\n  ```\n"), md)
        XCTAssertTrue(md.contains("### Exploration\n\n- `start-cancel/mutex/t2/r0`: explored 1,204 schedules"), md)
        XCTAssertEqual(MarkdownReport.fenced(["a ``` b"]), "````text\na ``` b\n````", "no text inside closes the block")
    }

    /// JUnit: every failed case's text has its own trace.
    func testJUnitFailureTextHasTheTrace() {
        let xml = JUnitReport.render(report())
        XCTAssertTrue(xml.contains("interleaving (2 workers, 1 preemption; shrunk from 4,812 events):"), xml)
        XCTAssertTrue(xml.contains("|   read count -&gt; 0  Counter:41 |"), xml)
        XCTAssertTrue(xml.contains("cycle: worker 0 holds the lock &apos;a&apos;"), "the caught deadlock's case output draws its own")
    }

    /// CSV: an explored trial's answer in four columns, appended; empty otherwise.
    func testCSVHasTheExplorationColumnsLast() {
        XCTAssertEqual(Array(CSVReport.columns.suffix(4)), ["exploration_schedules", "exploration_failed", "exploration_complete", "exploration_bound"])
        let rows = CSVReport.render(report()).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.map { Array($0.suffix(4)) }, [["", "", "", ""], ["", "", "", ""], ["1204", "0", "true", "2"]])
    }

    /// The JSON record carries the events, the shrinking and the
    /// exploration under the names, reads back the same, leaves
    /// out what is absent, and the schema describes every key.
    func testTheJSONRecordCarriesTheTraceAndReadsBack() throws {
        let report = report()
        let data = try ResultCoding.encodeResults(report)
        XCTAssertEqual(try ResultCoding.decoder().decode(RunReport.self, from: data), report)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let trials = try XCTUnwrap(object["trials"] as? [[String: Any]])
        let trace = try XCTUnwrap(trials[1]["trace"] as? [[String: Any]])
        XCTAssertEqual(trace.count, TraceFixtures.lostUpdate.count)
        XCTAssertEqual(trace[0] as NSDictionary, ["worker": 0, "kind": "operation-start", "name": "increment"] as NSDictionary,
                       "absent fields are left out")
        XCTAssertEqual(trace[1] as NSDictionary, ["worker": 0, "kind": "value", "name": "read count", "value": 0,
                                                  "file": "Counter/Counter.swift", "line": 41] as NSDictionary)
        XCTAssertEqual(trace[2]["preempted"] as? Bool, true)
        XCTAssertEqual(trials[1]["shrink"] as? NSDictionary, ["eventsBefore": 4_812, "eventsAfter": 11, "preemptionsBefore": 3,
                                                              "preemptionsAfter": 1, "encoded": "w0:2,w1:3,w0:1", "attempts": 57,
                                                              "timedOut": false] as NSDictionary)
        XCTAssertEqual(trials[2]["exploration"] as? NSDictionary, ["schedules": 1_204, "failed": 0, "complete": true, "bound": 2,
                                                                   "schedulesWithoutPruning": 3_310, "pruned": 2_106] as NSDictionary)
        for key in ["trace", "shrink", "exploration"] { XCTAssertNil(trials[2 - (key == "exploration" ? 2 : 0)][key], key) }
        XCTAssertNil(trials[0]["shrink"])

        let url = WorkloadTestSupport.packageRoot.appendingPathComponent("Schemas/results.schema.json")
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var undocumented: [String] = []
        SchemaWalker(root: schema).check(object, against: schema, at: "", missing: &undocumented)
        XCTAssertEqual(undocumented, [])
    }

    /// NDJSON: one line per record, the events in it, read back the same.
    func testTheNDJSONRecordReadsBack() throws {
        let r = TraceFixtures.lostUpdateResult()
        let line = try ResultCoding.encoder(pretty: false).encode(r)
        XCTAssertFalse(line.contains(UInt8(ascii: "\n")))
        XCTAssertEqual(try ResultCoding.decoder().decode(TrialResult.self, from: line), r)
        let old = try XCTUnwrap(JSONSerialization.jsonObject(with: line) as? [String: Any]).filter { !["trace", "shrink"].contains($0.key) }
        let read = try ResultCoding.decoder().decode(TrialResult.self, from: JSONSerialization.data(withJSONObject: old))
        XCTAssertNil(read.trace, "a record from before traces reads as having none")
    }

    /// A failing `StressTest` shows the trace in its message, before the rerun command.
    func testAFailingStressTestsMessageShowsTheTrace() {
        let run = Synthetic.report([TraceFixtures.lostUpdateResult()])
        let report = StressTestReport(run: run, subject: "workload counter",
                                      callSite: StressTestCallSite(fileID: "MyTests/CounterTests.swift", line: 12, column: 5, function: "counter()"),
                                      test: nil)
        let message = report.failure!.description
        let lines = message.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("  interleaving (2 workers, 1 preemption; shrunk from 4,812 events):"), message)
        XCTAssertTrue(lines.contains("  |   -- switch (preempted) --    |                               |"), message)
        XCTAssertTrue(lines.contains("  shrunk from 4,812 events, 3 preemptions to 11 events, 1 preemption (57 candidates replayed)"), message)
        XCTAssertTrue(lines.last!.hasPrefix("  rerun: "), message)
    }
}
