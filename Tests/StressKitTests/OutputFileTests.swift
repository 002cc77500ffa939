import Foundation
@testable import StressBenchCLI
import StressKit
import XCTest

/// Output files: a path that cannot be written is found before any trial runs;
/// at the end each file is written on its own, so one failure never loses the
/// others; errors carry the system's real reason.
final class OutputFileTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func testErrorsCarryTheRealReason() throws {
        let file = path("plain")
        try AtomicFile.write("x", to: file)
        XCTAssertThrowsError(try AtomicFile.write("x", to: file + "/out.json")) { error in
            XCTAssertEqual(error.localizedDescription, "Not a directory")
            XCTAssertEqual("\(error)", "cannot write \(file)/out.json: Not a directory")
        }
        XCTAssertThrowsError(try AtomicFile.write("x", to: path("missing/out.json"))) { error in
            XCTAssertEqual(error.localizedDescription, "No such file or directory")
        }
        XCTAssertThrowsError(try AtomicFile.checkWritable(dir.path)) { error in
            XCTAssertEqual(error.localizedDescription, "Is a directory")
        }
        XCTAssertThrowsError(try AtomicFile.prepareDirectory(file)) { error in
            XCTAssertEqual(error.localizedDescription, "Not a directory")
        }
        try AtomicFile.prepareDirectory(path("a/b/c"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("a/b/c")), [], "the probe is removed")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["a", "plain"], "no temporary files left")
    }

    func testOneFileThatCannotBeWrittenDoesNotLoseTheOthers() throws {
        var writer = OutputWriter(quiet: true)
        writer.write(path("first.json")) { Data("1".utf8) }
        writer.write(path("missing/second.json")) { Data("2".utf8) }
        writer.write(path("third.csv")) { Data("3".utf8) }
        writer.write(nil) { XCTFail("no path, nothing to write"); return Data() }
        XCTAssertEqual(writer.failures, 1)
        XCTAssertEqual(try String(contentsOfFile: path("first.json"), encoding: .utf8), "1")
        XCTAssertEqual(try String(contentsOfFile: path("third.csv"), encoding: .utf8), "3", "written after the failure")
        XCTAssertThrowsError(try writer.finish()) { error in
            XCTAssertEqual("\(error)", "ExitCode(rawValue: 2)")
        }
    }

    func testUnwritableOutputIsAUsageErrorBeforeAnyTrialRuns() throws {
        let plan = path("plan.yaml")
        try "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 100\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        let regularFile = path("plain")
        try "x".write(toFile: regularFile, atomically: true, encoding: .utf8)
        let cases: [(option: String, value: String, reason: String)] = [
            ("--json", path("missing/r.json"), "No such file or directory"),
            ("--csv", regularFile + "/r.csv", "Not a directory"),
            ("--markdown", dir.path, "Is a directory"),
            ("--junit", path("missing/j.xml"), "No such file or directory"),
            ("--hgrm-dir", regularFile, "Not a directory"),
        ]
        for c in cases {
            let stream = path("s.ndjson")
            let r = try TestSupport.cli(["run", plan, "--ndjson", stream, "--json", path("good.json"), c.option, c.value])
            XCTAssertEqual(r.status, 2, "\(c.option): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("cannot write \(c.value): \(c.reason); nothing was run"), "\(c.option): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("[1/1]"), "no trial ran: \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: stream), "the stream was never opened")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("good.json")))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no probe files left behind")
    }

    func testAStreamThatCannotBeAppendedToWarnsOnceAndTheRunGoesOn() throws {
        // /dev/full opens fine and refuses every write with ENOSPC.
        let plan = path("plan.yaml")
        try "experiments:\n  - workload: counter\n    strategies: [mutex, pthread-mutex]\n    threads: 1\n    ops: 100\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        let r = try TestSupport.cli(["run", plan, "--ndjson", "/dev/full", "--json", path("r.json"), "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "stressbench: warning: cannot append to /dev/full: No space left on device; "
                       + "the stream may miss records from here on (the final files still have them)\n", "once, not per trial")
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path("r.json"))))
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .passed])
    }
}
