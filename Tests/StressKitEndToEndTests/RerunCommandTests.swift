import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// The rerun commands a report prints, executed as a user would paste them
/// into a shell: each reruns exactly the trial (same id, seed and settings) or
/// the cell it names, whatever overrides the original run had.
final class RerunCommandTests: XCTestCase {
    /// Runs `command` with `sh -c`, the test's binaries first on the PATH.
    private func shell(_ command: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = TestSupport.environmentWithBinariesOnPath
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

    /// A plan whose every trial crashes (so every trial prints its rerun
    /// command). `_fault` is a test fixture: `stressbench-fixtures` runs it,
    /// and the rerun commands name that binary.
    private static let crashingPlan = """
        experiments:
          - workload: _fault
            parameters: { mode: exit, after_ops: 1 }
            strategies: [pthread-mutex]
            threads: 1
            ops: 10
            warmup: 0s
        """

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
        let plan = try writePlan(Self.crashingPlan)
        let dir = URL(fileURLWithPath: plan).deletingLastPathComponent()
        let first = dir.appendingPathComponent("first.json").path
        let overrides = ["--repetitions", "3", "--duration", "20ms", "--warmup", "5ms", "--allocator", allocator, "--fuzz", "yield", "--stop-on-violation",
                         "--deadlock-after", "1500ms", "--trial-timeout", "20s"]
        let run = try TestSupport.cli(["run", plan, "--json", first, "-q"] + overrides, executable: TestSupport.fixturesPath)
        XCTAssertEqual(run.status, 3, run.stdout + run.stderr)
        let original = try report(first)
        XCTAssertEqual(original.trials.map(\.trial.id), (0..<3).map { "_fault/pthread-mutex/\(jemalloc ? "jemalloc/" : "")t1/r\($0)" })
        let trial = original.trials[1]
        XCTAssertEqual(trial.trial.durationNanoseconds, 20_000_000, "--duration replaces the plan's ops")
        XCTAssertEqual(trial.trial.warmupNanoseconds, 5_000_000, "--warmup replaces the plan's warmup")
        XCTAssertNil(trial.trial.opsPerThread)
        let command = try XCTUnwrap(trial.rerunCommand)
        XCTAssertEqual(command, "stressbench-fixtures run '\(plan)' --only \(trial.trial.id) --seed \(trial.trial.seed) "
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
        // A threshold no machine meets fails the cell, which prints its rerun command.
        let plan = try writePlan("""
            thresholds: ["ops_per_s > 1000G"]
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 1
                ops: 10
            """)
        let custom = WorkloadTestSupport.builtExecutable("custom-stressbench")
        let run = try WorkloadTestSupport.run(custom, ["run", plan, "-q"])
        XCTAssertEqual(run.status, 4, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("    rerun: custom-stressbench run '\(plan)' --only counter/mutex/t1\n"), run.stdout)
    }

    func testTheCommandStartsAsTheUserRanIt() throws {
        let cases: [(String, String, [String]?)] = [
            ("stressbench", "stressbench", nil),                                     // on PATH
            (".build/release/stressbench", ".build/release/stressbench", nil),       // a path as typed
            ("./stressbench", "./stressbench", nil),
            (".build/x86_64-unknown-linux-gnu/release/stressbench", "stressbench", ["swift", "run", "-c", "release"]),  // swift run
            (".build/aarch64-unknown-linux-gnu/debug/my-bench", "my-bench", ["swift", "run"]),  // swift run of a team's own target
            ("/no/such/dir/stressbench", "/no/such/dir/stressbench", nil),           // not on PATH: the real path
        ]
        for (argv0, executable, launcher) in cases {
            let invoked = RerunCommand.invocation(argv0: argv0, searchPath: "/usr/bin:/bin")
            XCTAssertEqual(invoked.executable, executable, argv0)
            XCTAssertEqual(invoked.launcher, launcher, argv0)
        }
        // An absolute path whose directory is on PATH prints the name alone;
        // another file of that name first on PATH keeps the whole path.
        let binary = TestSupport.stressbenchPath
        let dir = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        XCTAssertEqual(RerunCommand.invocation(argv0: binary, searchPath: "/nonexistent:" + dir).executable, "stressbench")
        let other = try TestSupport.temporaryDirectory()
        let decoy = other.appendingPathComponent("stressbench").path
        XCTAssertTrue(FileManager.default.createFile(atPath: decoy, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        XCTAssertEqual(RerunCommand.invocation(argv0: binary, searchPath: other.path + ":" + dir).executable, binary)

        let spec = Synthetic.trial(repetition: 2, opsPerSecond: 1, latencyNs: 1).trial
        let command = RerunCommand(executable: "stressbench", launcher: ["swift", "run", "-c", "release"], options: ["--repetitions", "3"])
        XCTAssertEqual(command.trial(spec, planFile: "Plans/my plan.yaml"),
                       "swift run -c release stressbench run 'Plans/my plan.yaml' --only e/mutex/t2/r2 --seed 3 --repetitions 3")
    }

    /// `replay` takes every rerun command `run` prints, with `run` replaced:
    /// the overrides, and an id with its repetition.
    func testReplayAcceptsAPrintedRerunCommand() throws {
        let plan = try writePlan(Self.crashingPlan)
        let overrides = ["--repetitions", "3", "--fuzz", "yield", "--stop-on-violation", "--deadlock-after", "1500ms", "--trial-timeout", "20s"]
        let run = try TestSupport.cli(["run", plan, "-q"] + overrides, executable: TestSupport.fixturesPath)
        XCTAssertEqual(run.status, 3, run.stdout + run.stderr)
        let line = try XCTUnwrap(run.stdout.split(separator: "\n").first { $0.contains("rerun: ") && $0.contains("/r2 ") })
        let command = String(line.split(separator: "rerun: ", maxSplits: 1)[1])
        let replay = try shell(command.replacingOccurrences(of: "stressbench-fixtures run ", with: "stressbench-fixtures replay ") + " --times 2")
        XCTAssertEqual(replay.status, 0, replay.stdout + replay.stderr)
        XCTAssertTrue(replay.stdout.contains("replay rate: 2/2 (2 crashed); trial _fault/pthread-mutex/t1/r2"), replay.stdout)

        let cell = try shell("stressbench-fixtures replay '\(plan)' --only _fault/pthread-mutex/t1 --repetitions 3")
        XCTAssertEqual(cell.status, 2)
        XCTAssertTrue(cell.stderr.contains("'_fault/pthread-mutex/t1' matches 3 (_fault/pthread-mutex/t1/r0, _fault/pthread-mutex/t1/r1, _fault/pthread-mutex/t1/r2): add /rN to pick a repetition"), cell.stderr)
    }

    /// With `--baseline`, the printed rerun of a regressed cell compares that
    /// cell with the same cell of the baseline and reproduces the regression
    /// (exit 4), instead of finding the baseline's other cells missing (2).
    func testCellRerunWithABaselineReproducesTheRegression() throws {
        let plan = try writePlan("""
            gate: { metric: ops_per_s }
            experiments:
              - workload: counter
                strategies: [mutex, pthread-mutex]
                threads: 1
                ops: 2000
                warmup: 0s
                repetitions: 5
            """)
        let dir = URL(fileURLWithPath: plan).deletingLastPathComponent()
        let basePath = dir.appendingPathComponent("base.json").path
        XCTAssertEqual(try TestSupport.cli(["run", plan, "--json", basePath, "-q"]).status, 0)
        // A baseline a thousand times faster than any machine: every cell regresses.
        var base = try report(basePath)
        for i in base.trials.indices { base.trials[i].measurement?.opsPerSecond *= 1000 }
        try ResultCoding.encoder().encode(base).write(to: URL(fileURLWithPath: basePath))

        let gated = try TestSupport.cli(["run", plan, "--baseline", basePath, "-q"])
        XCTAssertEqual(gated.status, 4, gated.stdout + gated.stderr)
        let line = try XCTUnwrap(gated.stdout.split(separator: "\n").first { $0.contains("rerun: ") && $0.contains("--only counter/mutex/t1 ") })
        let command = String(line.split(separator: "rerun: ", maxSplits: 1)[1])
        XCTAssertTrue(command.hasSuffix(" --baseline '\(basePath)'"), command)
        let rerun = try shell(command + " -q")
        XCTAssertEqual(rerun.status, 4, rerun.stdout + rerun.stderr)
        XCTAssertTrue(rerun.stdout.contains("regressed: counter/mutex/t1"), rerun.stdout)
        XCTAssertFalse(rerun.stdout.contains("does not cover"), rerun.stdout)
    }
}
