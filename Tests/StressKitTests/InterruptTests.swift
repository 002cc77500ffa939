import Foundation
import StressKit
import XCTest

/// SIGINT to a running `stressbench run`: finished trials are kept, files are
/// whole and parse, the exit code says "interrupted".
final class InterruptTests: XCTestCase {
    private func startRun(_ dir: URL, extra: [String] = []) throws -> (Process, json: String, stream: String) {
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
        process.arguments = ["run", plan, "--json", json, "--ndjson", stream, "-q"] + extra
        _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("stdout.txt").path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: dir.appendingPathComponent("stdout.txt"))
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
        let file = { dir.appendingPathComponent($0).path }
        let (process, json, stream) = try startRun(dir, extra: ["--csv", file("out.csv"), "--markdown", file("out.md"), "--junit", file("out.xml")])
        waitForRecords(stream, 2)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 130)

        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertTrue(report.interrupted)
        XCTAssertEqual(report.stop?.reason, .signal)
        XCTAssertEqual(report.stop?.signal, "SIGINT")
        XCTAssertEqual(report.exitCode, .interrupted)
        XCTAssertEqual(report.trials.count, 12, "every trial has a record, run or not")
        let finished = report.trials.prefix { $0.outcome == .passed }
        XCTAssertGreaterThanOrEqual(finished.count, 2)
        XCTAssertLessThan(finished.count, 12, "it stopped early")
        let rest = report.trials.dropFirst(finished.count)
        XCTAssertTrue(rest.allSatisfy { $0.outcome == .skipped && $0.measurement == nil }, "\(report.trials.map(\.outcome))")
        XCTAssertTrue(rest.contains { $0.failure?.message == "not run: the run was interrupted by SIGINT" }
                      || rest.count == 1, "\(rest.map { $0.failure?.message ?? "" })")
        let streamed = try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n")
            .map { try ResultCoding.decoder().decode(TrialResult.self, from: Data($0.utf8)) }
        XCTAssertEqual(streamed, report.trials, "the stream and the final file agree")

        // Every output says the run was interrupted and gives the real exit code.
        let table = try String(contentsOfFile: file("stdout.txt"), encoding: .utf8)
        XCTAssertTrue(table.hasSuffix("skipped (interrupted by SIGINT); exit code 130\n"), table)
        let csvRows = try String(contentsOfFile: file("out.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        XCTAssertEqual(csvRows.count, 12)
        XCTAssertEqual(csvRows.filter { $0.contains(",skipped,") }.count, rest.count)
        let markdown = try String(contentsOfFile: file("out.md"), encoding: .utf8)
        XCTAssertTrue(markdown.hasPrefix("## ❌ stressbench `long`: interrupted by SIGINT (exit code 130)"), markdown)
        let junit = try String(contentsOfFile: file("out.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("errors=\"1\""), junit)
        XCTAssertTrue(junit.contains("<error type=\"interrupted\" message=\"interrupted by SIGINT: exit code 130;"), junit)
        XCTAssertEqual(junit.components(separatedBy: "<skipped ").count - 1, rest.count, junit)

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
