import Foundation
import StressKit
import XCTest

/// SIGINT to a running `stressbench run`: finished trials are kept, files are
/// whole and parse, the exit code says "interrupted".
final class InterruptTests: XCTestCase {
    private func startRun(_ dir: URL) throws -> (Process, json: String, stream: String) {
        let plan = dir.appendingPathComponent("long.yaml").path
        try """
            experiments:
              - workload: counter
                strategies: [pthread-mutex, mutex, nslock, serial-queue, rw-queue, actor]
                threads: [1, 2]
                duration: 400ms
                warmup: 0s
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let json = dir.appendingPathComponent("out.json").path
        let stream = dir.appendingPathComponent("out.ndjson").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.stressbenchPath)
        process.arguments = ["run", plan, "--json", json, "--ndjson", stream, "-q"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, json, stream)
    }

    /// Waits (up to a generous limit, not a speed assertion) until the stream has `n` records.
    private func waitForRecords(_ stream: String, _ n: Int) {
        for _ in 0..<600 {
            if let text = try? String(contentsOfFile: stream, encoding: .utf8),
               text.split(separator: "\n").count >= n { return }
            usleep(50_000)
        }
        XCTFail("the run never finished \(n) trial(s)")
    }

    func testSIGINTKeepsFinishedTrialsAndMarksTheRunInterrupted() throws {
        let dir = try TestSupport.temporaryDirectory()
        let (process, json, stream) = try startRun(dir)
        waitForRecords(stream, 2)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 130)

        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertTrue(report.interrupted)
        XCTAssertGreaterThanOrEqual(report.trials.count, 2)
        XCTAssertLessThan(report.trials.count, 12, "it stopped early")
        XCTAssertTrue(report.trials.allSatisfy { $0.outcome == .passed }, "only finished trials are kept: \(report.trials.map(\.outcome))")
        let streamed = try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n")
            .map { try ResultCoding.decoder().decode(TrialResult.self, from: Data($0.utf8)) }
        XCTAssertEqual(streamed, report.trials, "the stream and the final file agree")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no temporary files left behind")
    }

    func testSecondSIGINTExitsAtOnce() throws {
        let dir = try TestSupport.temporaryDirectory()
        let (process, _, stream) = try startRun(dir)
        waitForRecords(stream, 1)
        process.interrupt()
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let records = try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n")
        XCTAssertGreaterThanOrEqual(records.count, 1, "what finished before is still on disk")
        for line in records { XCTAssertNoThrow(try ResultCoding.decoder().decode(TrialResult.self, from: Data(line.utf8))) }
    }
}
