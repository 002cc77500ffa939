import Foundation
import StressKit
import XCTest

/// The README's examples compile (they are part of this package) and work: the
/// team's own executable lists and runs its workload with child-process
/// isolation, and the README shows the examples exactly as they are here.
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

    /// The README quotes the example files in full; a change to one must show there.
    func testReadmeQuotesTheExamplesVerbatim() throws {
        let readme = try String(contentsOfFile: WorkloadTestSupport.path("README.md"), encoding: .utf8)
        for file in [
            "Examples/CustomStressBench/main.swift",
            "Examples/CustomStressBench/SeatsWorkload.swift",
            "Examples/CustomStressBench/seats.yaml",
            "Tests/StressKitTests/PageViewsStressTests.swift",
        ] {
            let text = try String(contentsOfFile: WorkloadTestSupport.path(file), encoding: .utf8)
            XCTAssertTrue(readme.contains(text.trimmingCharacters(in: .whitespacesAndNewlines)), "README.md does not quote \(file) as it is")
        }
    }
}
