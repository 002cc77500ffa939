import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// Outputs named by a stream (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
/// `/proc/self/fd/N`) are written through the descriptor, whether it is a pipe
/// or a file the shell redirected to; a FIFO nobody reads ends with an error,
/// not a run that never ends; a signal while the files are written gives the
/// signal's exit code.
final class StreamOutputTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func tinyPlan(repetitions: Int = 1) throws -> String {
        let plan = path("plan.yaml")
        try "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 100\n    warmup: 0\n    repetitions: \(repetitions)\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        return plan
    }

    private func decodeReport(_ text: String) throws -> RunReport {
        try ResultCoding.decoder().decode(RunReport.self, from: Data(text.utf8))
    }

    /// `/dev/stdout` on a pipe used to fail ("No such file or directory":
    /// it is a link to `pipe:[N]`). Each name of descriptor 1 is standard
    /// output, so the table moves to standard error as with `-`.
    func testNamesOfStandardOutputWorkOnAPipe() throws {
        for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            let r = try TestSupport.cli(["run", try tinyPlan(), "--json", name, "-q"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertEqual(try decodeReport(r.stdout).trials.count, 1, name)
            XCTAssertTrue(r.stderr.contains("1 trial(s): 1 passed; exit code 0"), "\(name): the table went to standard error: \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("wrote"), "no 'wrote /dev/stdout' line: \(r.stderr)")
        }
    }

    func testStandardErrorIsWrittenThroughItsDescriptor() throws {
        let r = try TestSupport.cli(["run", try tinyPlan(), "--csv", "/dev/stderr", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("trial_id,plan,"), r.stderr)
        XCTAssertTrue(r.stderr.contains("\ncounter/mutex/t1/r0,"), r.stderr)
        XCTAssertTrue(r.stdout.contains("1 trial(s): 1 passed; exit code 0"), "the table stays on standard output: \(r.stdout)")
    }

    /// With standard output redirected to a file, `--json /dev/stdout` used
    /// to replace the file atomically, losing what was written to it before.
    /// It is now written through the descriptor: the file stays the same file
    /// and keeps its earlier contents.
    func testARedirectedStandardOutputFileIsAppendedToNotReplaced() throws {
        let out = path("out.txt")
        try "before\n".write(toFile: out, atomically: true, encoding: .utf8)
        let inode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: out)[.systemFileNumber] as? Int)
        let (status, stderr) = try TestSupport.cli(["run", try tinyPlan(), "--json", "/dev/stdout", "--csv", path("r.csv")], standardOutputAppendedTo: out)
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: out)[.systemFileNumber] as? Int, inode, "the same file, not a replacement")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("before\n{"), text)
        XCTAssertEqual(try decodeReport(String(text.dropFirst("before\n".count))).trials.count, 1)
        XCTAssertTrue(stderr.contains("1 trial(s): 1 passed; exit code 0"), stderr)
        XCTAssertTrue(stderr.contains("wrote \(path("r.csv"))"), stderr)
    }

    /// Two names of standard output are one output, and a descriptor that is
    /// not open is found before anything runs.
    func testStreamNamesAreCheckedBeforeAnythingRuns() throws {
        let plan = try tinyPlan()
        let twice = try TestSupport.cli(["run", plan, "--json", "-", "--csv", "/dev/stdout", "-q"])
        XCTAssertEqual(twice.status, 2, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("--json and --csv both name standard output ('-', '/dev/stdout')"), twice.stderr)
        let errorTwice = try TestSupport.cli(["run", plan, "--json", "/dev/stderr", "--ndjson", "/proc/self/fd/2", "-q"])
        XCTAssertEqual(errorTwice.status, 2, errorTwice.stderr)
        XCTAssertTrue(errorTwice.stderr.contains("--json and --ndjson both name the same file (/dev/stderr, /proc/self/fd/2)"), errorTwice.stderr)
        let closed = try TestSupport.cli(["run", plan, "--json", "/dev/fd/9", "-q"])
        XCTAssertEqual(closed.status, 2, closed.stderr)
        XCTAssertTrue(closed.stderr.contains("cannot write /dev/fd/9: descriptor 9 is not open in this process; nothing was run"), closed.stderr)
    }

    /// A FIFO nobody opens for reading used to block the run for ever. It is
    /// waited on for AtomicFile.fifoReaderWait (10 s), then reported as not
    /// written (exit code 2); the other files are written.
    func testAFIFOWithoutAReaderIsAnErrorAfterTheWait() throws {
        let fifo = path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let r = try TestSupport.cli(["run", try tinyPlan(), "--csv", fifo, "--json", path("r.json"), "-q"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot write \(fifo): no process opened the FIFO for reading within 10s"), r.stderr)
        XCTAssertTrue(r.stdout.contains("1 trial(s): 1 passed; exit code 2"), r.stdout)
        XCTAssertEqual(try decodeReport(String(contentsOfFile: path("r.json"), encoding: .utf8)).trials.count, 1)
    }

    /// SIGTERM while the run waits for a FIFO's reader at the end used to
    /// exit 2 (the wait failed with EINTR and was reported as a write error).
    /// The wait ends, the other files are written, and the exit code is 143.
    func testSIGTERMWhileWaitingForAReaderExits143() throws {
        let fifo = path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let stream = path("r.ndjson")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.stressbenchPath)
        process.arguments = ["run", try tinyPlan(), "--ndjson", stream, "--json", path("r.json"), "--markdown", fifo, "-q"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // The trial's record is on disk: the run is writing its files, and
        // waits up to 10 s on the FIFO.
        waitFor { ((try? String(contentsOfFile: stream, encoding: .utf8)) ?? "").hasSuffix("\n") }
        usleep(500_000)
        process.terminate()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 143, stderr)
        XCTAssertTrue(stderr.contains("cannot write \(fifo): "), stderr)
        XCTAssertEqual(try decodeReport(String(contentsOfFile: path("r.json"), encoding: .utf8)).trials.count, 1)
    }

    /// An NDJSON stream into a FIFO nobody reads: Ctrl-C during the wait at
    /// the start stops the run before its first trial, as an interrupted run
    /// (every trial `skipped`, the files written, exit code 130).
    func testSIGINTWhileTheStreamWaitsForAReaderIsAnInterruptedRun() throws {
        let fifo = path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.stressbenchPath)
        process.arguments = ["run", try tinyPlan(repetitions: 3), "--ndjson", fifo, "--json", path("r.json"), "-q"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Once the run catches SIGINT it opens the stream, and waits there.
        waitFor { catchesSIGINT(process.processIdentifier) }
        usleep(300_000)
        XCTAssertTrue(process.isRunning, "waiting for a reader")
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let report = try decodeReport(String(contentsOfFile: path("r.json"), encoding: .utf8))
        XCTAssertEqual(report.stop?.signal, "SIGINT")
        XCTAssertEqual(report.trials.map(\.outcome), [.skipped, .skipped, .skipped])
    }

    /// Whether process `pid` has a handler for SIGINT (the kernel's `SigCgt`
    /// mask in /proc/PID/status, bit 1 for signal 2).
    private func catchesSIGINT(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << (SIGINT - 1)) != 0
    }

    /// Polls `condition` (up to a generous limit, not a speed assertion).
    private func waitFor(_ condition: () -> Bool) {
        for _ in 0..<1200 {
            if condition() { return }
            usleep(50_000)
        }
        XCTFail("the condition never held")
    }
}
