import Foundation
@testable import StressBenchCLI
import StressKit
import StressKitTestSupport
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

    // MARK: - What an output path names

    private func tinyPlan() throws -> String {
        let plan = path("plan.yaml")
        try "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 100\n    warmup: 0\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        return plan
    }

    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// Run as root, `--csv /dev/null` used to replace the device with a
    /// regular file (the atomic replace renamed over it). A device is now
    /// written through and never replaced. Tested on a node of our own
    /// (mknod needs root; CI runs as root), never on the real /dev/null.
    func testADeviceIsWrittenThroughNotReplaced() throws {
        let device = path("null")
        // Major 1, minor 3: the null device.
        guard mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 else {
            throw XCTSkip("mknod needs root: \(String(cString: strerror(errno)))")
        }
        let r = try TestSupport.cli(["run", try tinyPlan(), "--csv", device, "--json", device + ".json", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(fileType(device), S_IFCHR, "still the device")
    }

    func testAFIFOIsWrittenThrough() throws {
        let fifo = path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let received = ReceivedBytes()
        let reader = Thread {
            // A blocking open waits for the writer; read until it closes.
            let fd = open(fifo, O_RDONLY)
            var bytes = Data(), buffer = [UInt8](repeating: 0, count: 4096)
            while fd >= 0 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                bytes.append(contentsOf: buffer[0..<n])
            }
            if fd >= 0 { close(fd) }
            received.set(bytes)
        }
        reader.start()
        let r = try TestSupport.cli(["run", try tinyPlan(), "--csv", fifo, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let csv = String(decoding: received.wait(), as: UTF8.self)
        XCTAssertTrue(csv.contains("counter/mutex/t1/r0"), "the CSV went through the FIFO: \(csv)")
        XCTAssertEqual(fileType(fifo), S_IFIFO, "still the FIFO")
    }

    /// A symlink is followed: the file it names is replaced, the link stays.
    func testASymlinkIsFollowed() throws {
        let target = path("real.json")
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        let link = path("link.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.json")
        let r = try TestSupport.cli(["run", try tinyPlan(), "--json", link, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(fileType(link), S_IFLNK, "still a link")
        XCTAssertTrue(try String(contentsOfFile: target, encoding: .utf8).contains("stressbench.results/1"))
    }

    func testADashIsStandardOutputAndTheTableMovesToStandardError() throws {
        let r = try TestSupport.cli(["run", try tinyPlan(), "--json", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(r.stdout.utf8))
        XCTAssertEqual(report.trials.count, 1)
        XCTAssertTrue(r.stderr.contains("1 trial(s): 1 passed; exit code 0"), r.stderr)
    }

    /// The same file for two outputs lost the JSON silently; now it is a
    /// usage error before anything runs, however the two paths are spelled.
    func testTwoOutputsNamingOneFileAreAUsageError() throws {
        let plan = try tinyPlan()
        let link = path("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path("same.csv"))
        for (a, b) in [(path("same.csv"), path("same.csv")), (path("same.csv"), link), ("-", "-"),
                       (path("same.csv"), dir.path + "/./same.csv")] {
            let r = try TestSupport.cli(["run", plan, "--json", a, "--csv", b, "-q"])
            XCTAssertEqual(r.status, 2, "\(a) \(b): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("both name"), r.stderr)
            XCTAssertTrue(r.stdout.isEmpty, "nothing ran")
        }
    }

    /// A read-only file is refused, even by root (who may write it anyway).
    func testAReadOnlyFileIsNotReplaced() throws {
        let file = path("locked.json")
        try "keep".write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(file, 0o444), 0)
        let r = try TestSupport.cli(["run", try tinyPlan(), "--json", file, "-q"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("read-only"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "keep")
    }

    /// /dev/full accepts the check and refuses the write: the table's last
    /// line said `exit code 0` while the process exited with 2.
    func testAFileThatFailsAtTheEndGivesTheTableTheRealExitCode() throws {
        let r = try TestSupport.cli(["run", try tinyPlan(), "--csv", "/dev/full", "-q"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stdout.contains("1 trial(s): 1 passed; exit code 2"), r.stdout)
        XCTAssertTrue(r.stderr.contains("cannot write /dev/full: No space left on device"), r.stderr)
    }
}

/// Bytes handed from a reader thread to the test.
private final class ReceivedBytes: @unchecked Sendable {
    // @unchecked: guarded by the condition.
    private let condition = NSCondition()
    private var data: Data?

    func set(_ value: Data) {
        condition.lock()
        data = value
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Data {
        condition.lock()
        defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data!
    }
}
