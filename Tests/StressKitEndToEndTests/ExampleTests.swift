import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// The documented examples compile (they are part of this package) and work:
/// the team's own executable lists and runs its workload with child-process
/// isolation, and the README and docs/ show the examples exactly as they are.
final class ExampleTests: XCTestCase {
    private var customStressbench: String { WorkloadTestSupport.builtExecutable("custom-stressbench") }

    func testCustomExecutableListsItsWorkloadBesideTheBuiltIns() throws {
        let list = try WorkloadTestSupport.run(customStressbench, ["list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("  seats\n"), list.stdout)
        XCTAssertTrue(list.stdout.contains("- seats: seats in the hall [integer 1...100000; default 32]"), list.stdout)
        XCTAssertTrue(list.stdout.contains("  bank\n"), "the built-ins are still there")
    }

    func testCustomExecutableRunsItsPlanInChildProcesses() throws {
        let dir = try TestSupport.temporaryDirectory()
        let json = dir.appendingPathComponent("seats.json").path
        let run = try WorkloadTestSupport.run(customStressbench, ["run", "Examples/CustomStressBench/seats.yaml", "--json", json, "-q"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.trials.count, 6)
        for trial in report.trials {
            XCTAssertEqual(trial.trial.workload, "seats")
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            XCTAssertEqual(trial.measurement?.totalOps, 5000 * trial.trial.threads)
        }
        // A plan naming a workload the plain stressbench does not have is an error there.
        let plain = try WorkloadTestSupport.run(TestSupport.stressbenchPath, ["validate", "Examples/CustomStressBench/seats.yaml"])
        XCTAssertEqual(plain.status, 2)
        XCTAssertTrue(plain.stderr.contains("seats"), plain.stderr)
    }

    /// The README and the guide pages quote these files in full (a Swift file
    /// from its first `import`, after the comment that says where it is
    /// quoted); a change to one must show where it is quoted, so a quote that
    /// drifts from its file, or a file no page quotes any more, fails here.
    func testTheDocumentationQuotesTheExamplesVerbatim() throws {
        let pages = try DocumentationPages.all()
        for file in [
            "Plans/quickstart.yaml",
            "Examples/CustomStressBench/main.swift",
            "Examples/CustomStressBench/SeatsWorkload.swift",
            "Examples/CustomStressBench/seats.yaml",
            "Tests/StressKitEngineTests/PageViewsStressTests.swift",
            "Tests/StressKitEngineTests/PluggabilityTests.swift",
        ] {
            let text = try String(contentsOfFile: WorkloadTestSupport.path(file), encoding: .utf8)
            let quoted = Self.quotedPart(of: text, swift: file.hasSuffix(".swift"))
            XCTAssertGreaterThan(quoted.count, 200, file)
            let quoting = pages.filter { $0.text.contains(quoted) }.map(\.path)
            XCTAssertFalse(quoting.isEmpty, "no page of README.md or docs/ quotes \(file) as it is")
        }
    }

    /// A quote that drifts by one character is caught: the check above is
    /// not satisfied by a page that holds most of the file.
    func testADriftedQuoteIsNotAQuote() throws {
        let file = try String(contentsOfFile: WorkloadTestSupport.path("Examples/CustomStressBench/seats.yaml"), encoding: .utf8)
        let page = try DocumentationPages.page(containing: Self.quotedPart(of: file, swift: false))
        let drifted = Self.quotedPart(of: file.replacingOccurrences(of: "audit_ratio: 0.1", with: "audit_ratio: 0.2"), swift: false)
        XCTAssertNotEqual(drifted, Self.quotedPart(of: file, swift: false))
        XCTAssertFalse(page.text.contains(drifted), page.path)
    }

    /// What a page quotes of a file: all of it, trimmed; for Swift, from the
    /// first `import` line on.
    static func quotedPart(of text: String, swift: Bool) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if swift, let first = lines.firstIndex(where: { $0.hasPrefix("import ") }) { lines.removeFirst(first) }
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
