import Foundation
import StressKit
import XCTest

/// The rerun commands a report prints, executed as a user would paste them
/// into a shell: each reruns exactly the trial (same id, seed and settings) or
/// the cell it names, whatever overrides the original run had.
final class RerunCommandTests: XCTestCase {
    /// Runs `command` with `sh -c`, the test's binaries first on the PATH.
    private func shell(_ command: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let bin = URL(fileURLWithPath: TestSupport.stressbenchPath).deletingLastPathComponent().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// A plan file in a directory whose name needs quoting in a shell.
    private func writePlan(_ text: String) throws -> String {
        let dir = try TestSupport.temporaryDirectory().appendingPathComponent("my plans")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let plan = dir.appendingPathComponent("plan.yaml").path
        try text.write(toFile: plan, atomically: true, encoding: .utf8)
        return plan
    }

    private func report(_ path: String) throws -> RunReport {
        try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testTrialRerunKeepsEveryOverrideAndRerunsExactlyThatTrial() throws {
        // Every repetition crashes, so every trial prints its rerun command.
        // The allocator override is jemalloc where it is installed (as in CI);
        // elsewhere jemalloc trials would be skipped, so the system allocator
        // is named explicitly instead: an override all the same.
        let jemalloc = Jemalloc.libraryPath != nil
        let allocator = jemalloc ? "jemalloc" : "system"
        let plan = try writePlan("""
            experiments:
              - workload: _fault
                parameters: { mode: exit, after_ops: 1 }
                strategies: [pthread-mutex]
                threads: 1
                ops: 10
                warmup: 0s
            """)
        let dir = URL(fileURLWithPath: plan).deletingLastPathComponent()
        let first = dir.appendingPathComponent("first.json").path
        let overrides = ["--repetitions", "3", "--allocator", allocator, "--fuzz", "yield", "--stop-on-violation",
                         "--deadlock-after", "1500ms", "--trial-timeout", "20s"]
        let run = try TestSupport.cli(["run", plan, "--json", first, "-q"] + overrides)
        XCTAssertEqual(run.status, 3, run.stdout + run.stderr)
        let original = try report(first)
        XCTAssertEqual(original.trials.map(\.trial.id), (0..<3).map { "_fault/pthread-mutex/\(jemalloc ? "jemalloc/" : "")t1/r\($0)" })
        let trial = original.trials[1]
        let command = try XCTUnwrap(trial.rerunCommand)
        XCTAssertEqual(command, "stressbench run '\(plan)' --only \(trial.trial.id) --seed \(trial.trial.seed) "
                       + overrides.joined(separator: " "))
        XCTAssertTrue(run.stdout.contains("  rerun: " + command), run.stdout)

        let again = dir.appendingPathComponent("again.json").path
        let rerun = try shell(command + " --json '\(again)' -q")
        XCTAssertEqual(rerun.status, 3, rerun.stdout + rerun.stderr)
        let rerunReport = try report(again)
        XCTAssertEqual(rerunReport.trials.count, 1)
        XCTAssertEqual(rerunReport.trials.first?.trial, trial.trial, "the same trial: id, seed, repetition, allocator, fuzz, limits")
        XCTAssertEqual(rerunReport.trials.first?.rerunCommand, command, "and it prints the same command again")
    }

    func testCellRerunKeepsRepetitionsAndAllocator() throws {
        // A threshold no machine meets fails the cell, which prints its rerun command.
        let plan = try writePlan("""
            thresholds: ["ops_per_s > 1000G"]
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 1
                ops: 1000
                warmup: 0s
            """)
        let dir = URL(fileURLWithPath: plan).deletingLastPathComponent()
        // The jemalloc cell where jemalloc is installed (CI installs it); the
        // system allocator's otherwise, whose trials would be skipped and not gated.
        let allocator = Jemalloc.libraryPath == nil ? "system" : "jemalloc"
        let segment = allocator == "system" ? "" : "/jemalloc"
        let first = dir.appendingPathComponent("first.json").path
        let run = try TestSupport.cli(["run", plan, "--json", first, "-q", "--repetitions", "2", "--allocator", allocator])
        XCTAssertEqual(run.status, 4, run.stdout + run.stderr)
        let command = "stressbench run '\(plan)' --only counter/mutex\(segment)/t1 --repetitions 2 --allocator \(allocator)"
        XCTAssertTrue(run.stdout.contains("    rerun: " + command + "\n"), run.stdout)

        let again = dir.appendingPathComponent("again.json").path
        let rerun = try shell(command + " --json '\(again)' -q")
        XCTAssertEqual(rerun.status, 4, rerun.stdout + rerun.stderr)
        XCTAssertEqual(try report(again).trials.map(\.trial), try report(first).trials.map(\.trial), "every repetition of the cell, as before")
    }

    func testATeamsOwnExecutablePrintsItsOwnName() throws {
        let plan = try writePlan("""
            experiments:
              - workload: _fault
                parameters: { mode: exit, after_ops: 1 }
                strategies: [mutex]
                threads: 1
                ops: 10
            """)
        let custom = WorkloadTestSupport.builtExecutable("custom-stressbench")
        let run = try WorkloadTestSupport.run(custom, ["run", plan, "-q"])
        XCTAssertEqual(run.status, 3, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("  rerun: custom-stressbench run '\(plan)' --only _fault/mutex/t1/r0 --seed "), run.stdout)
    }
}
