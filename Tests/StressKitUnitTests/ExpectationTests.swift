import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The `expect` key: a plan says which trials must fail and how; a trial that
/// fails as expected counts as passing ("caught, as expected"), and one that
/// passes where a failure is expected is a failure of its own.
final class ExpectationTests: XCTestCase {
    // MARK: - Parsing

    func testScalarListAndPerStrategyForms() throws {
        let plan = try TestSupport.plan("""
            defaults:
              threads: [1, 4]
              strategies: [pthread-mutex, unsynchronized]
            experiments:
              - name: all
                workload: counter
                expect: violated
              - name: either
                workload: counter
                expect: [deadlock, crashed]
              - name: mapped
                workload: counter
                expect: { unsynchronized: violated, unsynchronized/t1: passed, pthread-mutex/t4: [hang] }
              - name: plain
                workload: counter
            """)
        let e = plan.experiments
        XCTAssertEqual(e[0].expect.outcomes(strategy: "pthread-mutex", threads: 1), [.violated])
        XCTAssertEqual(e[1].expect.outcomes(strategy: "unsynchronized", threads: 4), [.deadlock, .crashed])
        XCTAssertEqual(e[2].expect.outcomes(strategy: "unsynchronized", threads: 4), [.violated])
        XCTAssertEqual(e[2].expect.outcomes(strategy: "unsynchronized", threads: 1), [.passed], "strategy/tN wins over the strategy")
        XCTAssertEqual(e[2].expect.outcomes(strategy: "pthread-mutex", threads: 4), [.hang])
        XCTAssertEqual(e[2].expect.outcomes(strategy: "pthread-mutex", threads: 1), [.passed], "not named: must pass")
        XCTAssertEqual(e[3].expect, .passing)

        // The matrix records it per trial; "must pass" is recorded as nothing.
        let trials = TrialMatrix.expand(plan)
        let mapped = trials.filter { $0.experiment == "mapped" }
        XCTAssertEqual(mapped.map(\.expect), [nil, [.hang], nil, [.violated]])
        let plain = trials.filter { $0.experiment == "plain" }
        XCTAssertFalse(plain.isEmpty)
        XCTAssertTrue(plain.allSatisfy { $0.expect == nil })
    }

    func testDefaultsExpectIsInheritedAndReplaced() throws {
        let plan = try TestSupport.plan("""
            defaults:
              strategies: [unsynchronized]
              threads: 2
              expect: { unsynchronized: violated }
            experiments:
              - workload: counter
              - name: own
                workload: counter
                expect: passed
            """)
        XCTAssertEqual(plan.experiments[0].expect.outcomes(strategy: "unsynchronized", threads: 2), [.violated])
        XCTAssertEqual(plan.experiments[1].expect.outcomes(strategy: "unsynchronized", threads: 2), [.passed])
    }

    func testBadExpectationsAreClearErrorsWithKeyPaths() {
        let cases: [(String, String)] = [
            ("expect: timeout", "experiments[0].expect: 'timeout' is not an outcome a plan can expect (a timeout, an error or a skip says the harness could not judge the trial): expected one of passed, violated, deadlock, hang, crashed"),
            ("expect: violatd", "experiments[0].expect: 'violatd' is not an outcome a plan can expect: expected one of passed, violated, deadlock, hang, crashed, a list of them, or a mapping from a strategy (or strategy/tN) to them; did you mean 'violated'?"),
            ("expect: []", "experiments[0].expect: the list is empty"),
            ("expect: [violated, violated]", "experiments[0].expect[1]: outcome 'violated' is listed twice"),
            ("expect: { actor: violated }", "experiments[0].expect.actor: this experiment does not run strategy 'actor' (it runs: mutex)"),
            ("expect: { mutx: violated }", "experiments[0].expect.mutx: unknown strategy 'mutx'; did you mean 'mutex'? (this experiment runs: mutex)"),
            ("expect: { mutex/t8: violated }", "experiments[0].expect.mutex/t8: this experiment runs 2 worker(s), not 8"),
            ("expect: { mutex/four: violated }", "experiments[0].expect.mutex/four: 'mutex/four' is not a strategy or a strategy at a thread count"),
            ("expect: {}", "experiments[0].expect: the mapping is empty"),
            ("expect: { mutex: { t2: violated } }", "experiments[0].expect.mutex: expected an outcome or a list of outcomes here, found a mapping"),
        ]
        for (line, message) in cases {
            let problems = TestSupport.problems("""
                experiments:
                  - workload: counter
                    strategies: [mutex]
                    threads: 2
                    \(line)
                """)
            XCTAssertTrue(problems.contains { $0.description.contains(message) }, "\(line): \(problems.map(\.description))")
        }
    }

    // MARK: - Judging results

    private func trial(_ outcome: TrialOutcome, expect: [TrialOutcome]?, repetition: Int = 0) -> TrialResult {
        var r = Synthetic.trial(repetition: repetition, opsPerSecond: 1000, latencyNs: 1000, outcome: outcome)
        r.trial.expect = expect
        if outcome == .violated {
            r.violations = ViolationReport(count: 1, samples: [ViolationSample(thread: 0, operation: "increment", step: nil, opNumber: 3, message: "lost update")])
        }
        return r
    }

    func testStatusAndExitCode() {
        XCTAssertEqual(trial(.passed, expect: nil).expectation, .passed)
        XCTAssertEqual(trial(.violated, expect: [.violated]).expectation, .caught)
        XCTAssertEqual(trial(.passed, expect: [.violated]).expectation, .missed)
        XCTAssertEqual(trial(.crashed, expect: [.violated]).expectation, .unexpected)
        XCTAssertEqual(trial(.passed, expect: [.violated, .passed]).expectation, .passed)
        XCTAssertEqual(trial(.skipped, expect: [.violated]).expectation, .skipped)

        let report = { (trials: [TrialResult]) in Synthetic.report(trials).exitCode }
        XCTAssertEqual(report([trial(.passed, expect: nil), trial(.violated, expect: [.violated], repetition: 1)]), .passed,
                       "caught, as expected: counts as passing")
        XCTAssertEqual(report([trial(.deadlock, expect: [.deadlock, .crashed])]), .passed)
        XCTAssertEqual(report([trial(.passed, expect: [.violated])]), .violations, "the checks have gone blind")
        XCTAssertEqual(report([trial(.passed, expect: [.deadlock]), trial(.crashed, expect: [.deadlock], repetition: 1)]), .trialFailures)
        XCTAssertEqual(report([trial(.violated, expect: nil)]), .violations)
    }

    func testReportsSayCaughtAsExpectedAndMissed() throws {
        var caught = trial(.violated, expect: [.violated])
        caught.rerunCommand = "stressbench run synthetic.yaml --only e/mutex/t2/r0 --seed 1"
        let missed = trial(.passed, expect: [.violated], repetition: 1)
        let report = Synthetic.report([caught, missed])

        XCTAssertEqual(TableReport.outcomeCell(caught), "violated (expected)")
        XCTAssertEqual(TableReport.outcomeCell(missed), "passed (expected violated)")
        let table = TableReport.render(report)
        XCTAssertTrue(table.contains("e/mutex/t2/r0: violated: caught, as expected"), table)
        XCTAssertTrue(table.contains("e/mutex/t2/r1: passed, but the plan expects violated: the checks did not see the bug"), table)
        XCTAssertTrue(table.contains("2 trial(s): 1 passed, 1 violated (1 caught, as expected; 1 expected to fail, but passed); exit code 1"), table)

        let md = MarkdownReport.render(report)
        XCTAssertTrue(md.contains("### Caught, as expected\n\n<details>"), md)
        XCTAssertTrue(md.contains("- `e/mutex/t2/r0`: **violated** (caught, as expected): thread 0, op #3, increment: lost update"), md)
        XCTAssertTrue(md.contains("- `e/mutex/t2/r1`: **passed**, but the plan expects **violated**"), md)

        let document = try XMLDocument(xmlString: JUnitReport.render(report))
        let failures = try document.nodes(forXPath: "/testsuites/testsuite[1]/testcase/failure") as? [XMLElement] ?? []
        XCTAssertEqual(failures.count, 1, "the caught trial passes; the missed one fails")
        XCTAssertEqual(failures.first?.attribute(forName: "type")?.stringValue, "expected-violated")
        let out = try document.nodes(forXPath: "/testsuites/testsuite[1]/testcase[1]/system-out").first?.stringValue ?? ""
        XCTAssertTrue(out.contains("caught, as expected"), out)

        let csv = CSV.parse(CSVReport.render(report))
        let header = try XCTUnwrap(csv.first)
        let columns = (try XCTUnwrap(header.firstIndex(of: "expected")), try XCTUnwrap(header.firstIndex(of: "expectation")))
        XCTAssertEqual(csv.dropFirst().map { [$0[columns.0], $0[columns.1]] }, [["violated", "caught"], ["violated", "missed"]])
    }

    func testTheResultsSchemaKnowsTheExpectKey() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/results.schema.json")
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let report = Synthetic.report([trial(.violated, expect: [.violated, .crashed])])
        let json = try JSONSerialization.jsonObject(with: ResultCoding.encoder().encode(report))
        var undocumented: [String] = []
        SchemaWalker(root: schema).check(json, against: schema, at: "", missing: &undocumented)
        XCTAssertEqual(undocumented, [])
    }
}
