import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The outputs as CI systems read them: JUnit a Jenkins-schema validator
/// accepts, with real times and crash causes; a Markdown step summary that
/// renders well; the JSON's per-cell summary; the control labelled.
final class CIOutputTests: XCTestCase {
    private func crashed() -> TrialResult {
        var r = Synthetic.trial(repetition: 0, opsPerSecond: 1, latencyNs: 1, outcome: .crashed)
        r.measurement = nil
        r.wallNanoseconds = 1_250_000_000
        r.failure = FailureReport(message: "the trial process died of SIGILL", signal: "SIGILL", outputTail: [
            "Synchronization/LinuxImpl.swift:157: Fatal error: Recursive call to lock Mutex",
            "stressbench: the trial process got SIGILL; where each worker was:",
        ])
        return r
    }

    private func deadlocked() -> TrialResult {
        var r = Synthetic.trial(repetition: 1, opsPerSecond: 1, latencyNs: 1, outcome: .deadlock)
        r.measurement = nil
        r.wallNanoseconds = 2_500_000_000
        r.failure = FailureReport(message: "deadlock: every worker waits on another (cycle: worker 0 → worker 0)")
        return r
    }

    func testJUnitIsValidForJenkinsWithRealTimesAndCauses() throws {
        var skipped = Synthetic.trial(repetition: 2, opsPerSecond: 1, latencyNs: 1, outcome: .skipped)
        skipped.measurement = nil
        let xml = JUnitReport.render(Synthetic.report([crashed(), deadlocked(), skipped]))
        let document = try XMLDocument(xmlString: xml)
        let root = try XCTUnwrap(document.rootElement())
        XCTAssertNil(root.attribute(forName: "skipped"), "junit-10.xsd allows `skipped` on <testsuite> only")
        XCTAssertEqual(root.attribute(forName: "time")?.stringValue, "3.750")
        let failures = try document.nodes(forXPath: "/testsuites/testsuite/testcase/failure") as? [XMLElement] ?? []
        let messages = failures.compactMap { $0.attribute(forName: "message")?.stringValue }
        XCTAssertEqual(messages, [
            "crashed: the trial process died of SIGILL (Synchronization/LinuxImpl.swift:157: Fatal error: Recursive call to lock Mutex)",
            "deadlock: every worker waits on another (cycle: worker 0 → worker 0)",
        ])
        XCTAssertFalse(xml.contains("deadlock: deadlock:"), xml)
        let md = MarkdownReport.render(Synthetic.report([deadlocked()]))
        XCTAssertTrue(md.contains("- `e/mutex/t2/r1`: **deadlock**: every worker waits on another"), md)
        let times = try document.nodes(forXPath: "/testsuites/testsuite/testcase/@time").compactMap(\.stringValue)
        XCTAssertEqual(times, ["1.250", "2.500", "0.000"], "a failed case carries the time it really took")
    }

    func testMarkdownBreaksBeforeRerunsShowsCausesAndFoldsLargeTables() throws {
        let md = MarkdownReport.render(Synthetic.report([crashed()]))
        XCTAssertTrue(md.contains("- `e/mutex/t2/r0`: **crashed**: the trial process died of SIGILL  \n"
                                  + "  cause: `Synchronization/LinuxImpl.swift:157: Fatal error: Recursive call to lock Mutex`  \n"
                                  + "  rerun: `stressbench run synthetic.yaml --only e/mutex/t2/r0 --seed 1`\n"), md)
        XCTAssertFalse(md.contains("<details>"), "a small run is not folded")

        let many = (0..<25).flatMap { i in Synthetic.cell(throughputs: [1000], latencyNs: [1000], threads: i + 1) }
        let large = MarkdownReport.render(Synthetic.report(many))
        XCTAssertTrue(large.contains("<details><summary>25 cell(s) (click to show the table)</summary>\n\n"), large)
        XCTAssertTrue(large.contains("| `e/mutex/t25` | 1 |"), large)
        XCTAssertTrue(large.contains("| 1 passed |\n\n</details>\n"), large)
    }

    func testComparisonTableShowsBaselineAndNewValues() throws {
        let base = Synthetic.report(Synthetic.cell(throughputs: [1000, 1000, 1000, 1000, 1000], latencyNs: [1_000, 1_000, 1_000, 1_000, 1_000]))
        var new = Synthetic.report(Synthetic.cell(throughputs: [1000, 1000, 1000, 1000, 1000], latencyNs: [2_000, 2_000, 2_000, 2_000, 2_000]))
        new.gate = GateReport.evaluate(new.trials, policy: GatePolicy(planThresholds: [], comparison: ComparisonSettings()), baseline: base)
        let md = MarkdownReport.render(new)
        XCTAssertTrue(md.contains("| cell | n | baseline (median) | new (median) | ratio [interval] |"), md)
        XCTAssertTrue(md.contains("| `e/mutex/t2` | 5/5 | 1µs | 2µs | "), md)
    }

    func testCellSummaryHasTheMedianItsIntervalAndTheOutcomes() throws {
        var trials = Synthetic.cell(throughputs: [1, 1, 1, 1, 1, 1, 1, 1], latencyNs: [800, 900, 1_000, 1_100, 1_200, 1_300, 1_400, 5_000])
        trials[7].outcome = .violated
        trials[7].trial.expect = [.violated, .passed]
        let control = Synthetic.cell(throughputs: [1, 1], latencyNs: [10, 10], strategy: "unsynchronized")
        let cells = CellSummary.of(Synthetic.report(trials + control))
        XCTAssertEqual(cells.map(\.cell), ["e/mutex/t2", "e/unsynchronized/t2"])
        let c = cells[0]
        XCTAssertEqual(c.metric, "p50")
        XCTAssertEqual(c.samples, 8)
        XCTAssertEqual(c.median, 1_150)
        // n = 8: the 2nd smallest to the 2nd largest covers 1 − 2·9/256 = 93%
        // < 95%, so the interval is the whole range, covering 1 − 2/256.
        XCTAssertEqual(c.low, 800)
        XCTAssertEqual(c.high, 5_000)
        XCTAssertEqual(try XCTUnwrap(c.confidence), 1 - 2.0 / 256, accuracy: 1e-12)
        XCTAssertEqual(c.outcomes, ["passed": 7, "violated": 1])
        XCTAssertEqual(c.expectation, ["passed": 7, "caught": 1])
        XCTAssertTrue(c.comparable)
        XCTAssertFalse(cells[1].comparable, "the control's figures are not comparable")

        let twelve = CellSummary.medianInterval(sorted: (1...12).map(Double.init))
        XCTAssertEqual(twelve?.low, 3, "n = 12: the 3rd smallest to the 3rd largest covers 96.1%")
        XCTAssertEqual(twelve?.high, 10)
        XCTAssertNil(CellSummary.medianInterval(sorted: [1]), "one sample bounds nothing")
        // Every size from 2 to 40: an interval inside the samples' range that holds the median.
        for n in 2...40 {
            let sorted = (1...n).map(Double.init)
            let i = try XCTUnwrap(CellSummary.medianInterval(sorted: sorted), "n = \(n)")
            XCTAssertLessThanOrEqual(i.low, try XCTUnwrap(Statistics.median(sorted)), "n = \(n)")
            XCTAssertGreaterThanOrEqual(i.high, try XCTUnwrap(Statistics.median(sorted)), "n = \(n)")
            XCTAssertTrue(i.confidence >= 0.95 || (i.low == 1 && i.high == Double(n)), "n = \(n): \(i)")
        }
    }

    func testTheTableLabelsTheControl() {
        let control = Synthetic.cell(throughputs: [1], latencyNs: [10], strategy: "unsynchronized")
        XCTAssertTrue(TableReport.render(Synthetic.report(control)).contains("unsynchronized: no synchronization, so its ops/s and latencies are not comparable"))
        XCTAssertNil(TableReport.controlLine(Synthetic.cell(throughputs: [1], latencyNs: [10])))
    }
}

/// The documented GitHub Actions example (docs/github-actions.md): current actions, a pinned Swift, the
/// JUnit file published as a check, and steps after the gate that cannot add
/// a failure of their own after a failed build.
final class CIWorkflowExampleTests: XCTestCase {
    private func workflow() throws -> String {
        let marker = "```yaml\n# .github/workflows/stressbench.yml\n"
        let page = try DocumentationPages.page(containing: marker).text
        let start = try XCTUnwrap(page.range(of: marker))
        let end = try XCTUnwrap(page.range(of: "\n```", range: start.upperBound..<page.endIndex))
        return String(page[start.upperBound..<end.lowerBound])
    }

    func testTheExampleUsesCurrentActionsAndAPinnedSwift() throws {
        let text = try workflow()
        // The first major version of each action that runs on Node 24.
        let minimum = ["actions/checkout": 5, "actions/upload-artifact": 6, "actions/download-artifact": 7,
                       "actions/github-script": 8, "mikepenz/action-junit-report": 6]
        let uses = text.split(separator: "\n").compactMap { line -> (String, Int)? in
            guard let r = line.range(of: "uses: ") else { return nil }
            let parts = line[r.upperBound...].split(separator: "@")
            return (String(parts[0]), Int(parts[1].dropFirst()) ?? 0)
        }
        XCTAssertFalse(uses.isEmpty)
        for (action, major) in uses {
            let least = try XCTUnwrap(minimum[action], "\(action): not an action this test knows; check its runtime")
            XCTAssertGreaterThanOrEqual(major, least, action)
        }
        XCTAssertTrue(uses.contains { $0.0 == "mikepenz/action-junit-report" }, "the JUnit file is published to the checks UI")
        XCTAssertNotNil(text.range(of: #"container: swift:\d+\.\d+\.\d+"#, options: .regularExpression), "a pinned Swift version")
        XCTAssertTrue(text.contains("checks: write"))
        XCTAssertTrue(text.contains("if: always() && hashFiles('results.json') != ''"), "plots only when there are results")
    }
}

