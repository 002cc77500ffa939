import Foundation
import StressKit
import StressKitTestSupport
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

    /// Starts `stressbench run --in-process` on a plan of a quick trial and a
    /// slow one, and returns once the quick one is on disk and the slow one has
    /// had a second to get going.
    private func startInProcess(_ dir: URL, slow: String) throws -> (Process, json: String, stream: String) {
        let plan = dir.appendingPathComponent("slow.yaml").path
        try """
            defaults: { threads: 1, warmup: 0s, strategies: [pthread-mutex] }
            experiments:
              - name: quick
                workload: counter
                ops: 1000
              - name: slow
            \(slow.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let json = dir.appendingPathComponent("out.json").path
        let stream = dir.appendingPathComponent("out.ndjson").path
        let process = Process()
        // With the fixtures: the slow trial may be a `_fault` that never ends.
        process.executableURL = URL(fileURLWithPath: TestSupport.fixturesPath)
        process.arguments = ["run", plan, "--in-process", "--json", json, "--ndjson", stream, "-q"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        waitForRecords(stream, 1)
        sleep(1)
        XCTAssertTrue(process.isRunning, "the slow trial is running")
        return (process, json, stream)
    }

    /// Seconds until `process` exits (or `limit` passes).
    private func secondsToExit(_ process: Process, limit: Double) -> Double {
        let start = Date()
        while process.isRunning && Date().timeIntervalSince(start) < limit { usleep(20_000) }
        return Date().timeIntervalSince(start)
    }

    func testInProcessSIGINTEndsTheRunningTrial() throws {
        // A 60 s trial: without a stop from Ctrl-C it would run to its end.
        let dir = try TestSupport.temporaryDirectory()
        let (process, json, _) = try startInProcess(dir, slow: "workload: counter\nduration: 60s")
        process.interrupt()
        let waited = secondsToExit(process, limit: 120)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertLessThan(waited, 30, "the trial was ended, not left to run its 60 s")
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .skipped])
        XCTAssertEqual(report.trials[1].failure?.message, "interrupted by SIGINT before it finished; stopped early")
        XCTAssertTrue(report.trials[1].measurement == nil, "a cut-short window is not a measurement")
    }

    func testSecondSIGINTExitsAtOnce() throws {
        // In process, a worker stuck in an endless loop never sees the first
        // SIGINT's stop: the orderly shutdown waits for the watchdog to give up
        // (deadlock_after, 60 s) and then exits with 3. Only the second SIGINT
        // can end it sooner, with 130.
        let dir = try TestSupport.temporaryDirectory()
        let (process, json, stream) = try startInProcess(dir, slow: """
            workload: _fault
            parameters: { mode: hang, where: outside, after_ops: 50 }
            ops: 1000
            deadlock_after: 60s
            """)
        process.interrupt()
        sleep(1)
        XCTAssertTrue(process.isRunning, "the first SIGINT cannot end a trial whose worker never stops")
        process.interrupt()
        let waited = secondsToExit(process, limit: 120)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, "the second SIGINT ended it, not the watchdog (which exits 3)")
        XCTAssertLessThan(waited, 30, "well before the 60 s the orderly path would take")
        XCTAssertFalse(FileManager.default.fileExists(atPath: json), "exiting at once writes no final file")
        let records = try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(records.count, 1, "what finished before is still on disk")
        for line in records { XCTAssertNoThrow(try ResultCoding.decoder().decode(TrialResult.self, from: Data(line.utf8))) }
    }
    /// A 10,000-repetition run interrupted after a few trials used to spend
    /// seconds appending the skipped records to the stream, one write and one
    /// fsync each (10 to 48 s in a release build on a loaded machine), past a
    /// container's 10-second stop grace, which would then have killed it with
    /// nothing written. The records now go out a chunk at a time, unflushed. What
    /// the test holds (without timing it: the time depends on the machine's
    /// load) is that every file is whole: 10,000 records in the JSON, the
    /// CSV and the stream, the stream equal to the JSON's trials.
    func testSIGINTOnALargePlanLeavesEveryRecordInEveryFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        let file = { dir.appendingPathComponent($0).path }
        let plan = file("large.yaml")
        try "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 1000\n    warmup: 0\n    repetitions: 10000\n"
            .write(toFile: plan, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestSupport.stressbenchPath)
        process.arguments = ["run", plan, "--json", file("out.json"), "--csv", file("out.csv"), "--ndjson", file("out.ndjson"), "-q"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        waitForRecords(file("out.ndjson"), 3)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: file("out.json"))))
        XCTAssertEqual(report.trials.count, 10_000)
        let skipped = report.trials.filter { $0.outcome == .skipped }
        XCTAssertGreaterThan(skipped.count, 9_000)
        let streamed = try String(contentsOfFile: file("out.ndjson"), encoding: .utf8).split(separator: "\n")
            .map { try ResultCoding.decoder().decode(TrialResult.self, from: Data($0.utf8)) }
        XCTAssertEqual(streamed, report.trials, "the stream holds every record, the skipped ones too")
        XCTAssertEqual(try String(contentsOfFile: file("out.csv"), encoding: .utf8).split(separator: "\n").count, 10_001)
    }
}
