import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// No output ever replaces a file the command reads: the plan, a baseline,
/// the results files `compare` and `merge` read, the executables. Every
/// spelling that reaches the file is refused before anything runs, with exit
/// code 2 and both names, and the input stays byte for byte what it was.
final class InputProtectionTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private let planText = "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 100\n    warmup: 0\n"

    private func writePlan(_ name: String = "plan.yaml") throws -> String {
        try planText.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    private func contents(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: file)) }

    /// The check the issue names: `run PLAN --json PLAN` exits 2 and leaves
    /// PLAN unchanged; so does every output option, and every spelling of the
    /// plan's path (a symlink, `..`, a hard link).
    func testNoOutputOfRunReplacesThePlan() throws {
        let plan = try writePlan()
        let before = try contents(plan)
        try FileManager.default.createDirectory(atPath: path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path("link.yaml"), withDestinationPath: "plan.yaml")
        XCTAssertEqual(link(plan, path("hard.yaml")), 0)
        let spellings = [plan, path("link.yaml"), path("sub/../plan.yaml"), path("hard.yaml")]
        for option in ["--json", "--csv", "--ndjson", "--markdown", "--junit"] {
            for spelling in spellings {
                let r = try TestSupport.cli(["run", plan, option, spelling, "-q"])
                XCTAssertEqual(r.status, 2, "\(option) \(spelling): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains("\(option) \(spelling) names the plan file \(plan)"), r.stderr)
                XCTAssertTrue(r.stderr.contains("nothing was run"), r.stderr)
                XCTAssertTrue(r.stdout.isEmpty, "no trial ran: \(r.stdout)")
                XCTAssertEqual(try contents(plan), before, "\(option) \(spelling) left the plan unchanged")
            }
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("link.yaml")), "plan.yaml", "still a link")
    }

    /// A stream the shell pointed at the plan (`--json - >> plan.yaml`) is
    /// the plan too.
    func testStandardOutputRedirectedToThePlanIsRefused() throws {
        let plan = try writePlan()
        let before = try contents(plan)
        let (status, stderr) = try TestSupport.cli(["run", plan, "--json", "/dev/stdout", "-q"], standardOutputAppendedTo: plan)
        XCTAssertEqual(status, 2, stderr)
        XCTAssertTrue(stderr.contains("--json /dev/stdout names the plan file \(plan) (the shell redirected that stream to it)"), stderr)
        XCTAssertEqual(try contents(plan), before)
    }

    /// A baseline is read by the run: writing the new results over it would
    /// lose the very figures the run is compared with.
    func testNoOutputReplacesTheBaseline() throws {
        let plan = try writePlan()
        let baseline = path("base.json")
        XCTAssertEqual(try TestSupport.cli(["run", plan, "--json", baseline, "-q"]).status, 0)
        let before = try contents(baseline)
        for option in ["--json", "--csv", "--junit"] {
            let r = try TestSupport.cli(["run", plan, "--baseline", baseline, option, baseline, "-q"])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(option) \(baseline) names the baseline \(baseline)"), r.stderr)
            XCTAssertEqual(try contents(baseline), before)
        }
    }

    /// `compare` reads both results files (and a plan); `merge` reads every
    /// input; `ab` reads the plan.
    func testCompareMergeAndABRefuseToReplaceTheirInputs() throws {
        let plan = try writePlan()
        let a = path("a.json"), b = path("b.json")
        for file in [a, b] { XCTAssertEqual(try TestSupport.cli(["run", plan, "--json", file, "-q"]).status, 0) }
        let before = try [a, b, plan].map(contents)
        let attempts: [(arguments: [String], says: String)] = [
            (["compare", a, b, "--json", b], "--json \(b) names the new results file \(b)"),
            (["compare", a, b, "--markdown", a], "--markdown \(a) names the baseline \(a)"),
            (["compare", a, b, "--plan", plan, "--junit", plan], "--junit \(plan) names the plan file \(plan)"),
            (["merge", a, b, "-o", b], "--output \(b) names an input results file \(b)"),
            (["merge", a, b, "-o", path("m.json"), "--csv", a], "--csv \(a) names an input results file \(a)"),
            (["ab", TestSupport.stressbenchPath, TestSupport.stressbenchPath, plan, "--json", plan], "--json \(plan) names the plan file \(plan)"),
        ]
        for attempt in attempts {
            let r = try TestSupport.cli(attempt.arguments)
            XCTAssertEqual(r.status, 2, "\(attempt.arguments): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(attempt.says), "\(attempt.arguments): \(r.stderr)")
            XCTAssertEqual(try [a, b, plan].map(contents), before, "\(attempt.arguments)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("m.json")))
    }

    /// `.hgrm` files are named after trials, so an input in the histogram
    /// directory with that ending could be replaced by one.
    func testAHistogramDirectoryHoldingAnInputIsRefused() throws {
        let plan = try writePlan("counter_mutex_t1_r0.hgrm")
        let before = try contents(plan)
        let r = try TestSupport.cli(["run", plan, "--hgrm-dir", dir.path, "-q"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--hgrm-dir \(dir.path) would receive .hgrm files beside the plan file \(plan)"), r.stderr)
        XCTAssertEqual(try contents(plan), before)
    }

    /// The executable that runs every trial is read too (a copy of the test
    /// build, so the one other tests use is never at risk).
    func testTheRunningExecutableIsNotReplaced() throws {
        let copy = path("stressbench")
        try FileManager.default.copyItem(atPath: TestSupport.stressbenchPath, toPath: copy)
        let before = try contents(copy)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: copy)
        process.arguments = ["run", try writePlan(), "--csv", copy, "-q"]
        // The copy finds the build's shared libraries where the original is.
        let buildDirectory = URL(fileURLWithPath: TestSupport.stressbenchPath).deletingLastPathComponent().path
        process.environment = ProcessInfo.processInfo.environment.merging(["LD_LIBRARY_PATH": buildDirectory]) { $1 }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 2, stderr)
        XCTAssertTrue(stderr.contains("--csv \(copy) names the running stressbench executable"), stderr)
        XCTAssertEqual(try contents(copy), before)
    }
}
