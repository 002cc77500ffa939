import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `stressbench ab` end to end, with the built binaries: a build compared
/// with itself, the outputs, the handshake and the errors. No assertion here
/// depends on how fast the machine is.
final class ABCommandTests: XCTestCase {
    /// Two cells of short trials: a few seconds for 6 pairs each.
    private let plan = """
        name: ab-test
        experiments:
          - name: counter
            workload: counter
            strategies: [pthread-mutex, mutex]
            threads: [1]
            duration: 20ms
            warmup: 5ms
        """

    private func planFile(_ yaml: String? = nil) throws -> (dir: URL, path: String) {
        let dir = try TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("plan.yaml").path
        try (yaml ?? plan).write(toFile: path, atomically: true, encoding: .utf8)
        return (dir, path)
    }

    /// The same binary on both sides exits 0 and writes its verdicts. With 6
    /// pairs for 2 cells no cell can be called regressed at all (the
    /// smallest p, 2/2⁶, is 0.0625 after Holm), whatever the machine does
    /// meanwhile: the exit code cannot flake; `--tolerance 50%` keeps the
    /// verdicts to unchanged or inconclusive on a loaded machine. Wall time
    /// (ns_per_op) is there for every trial that completed an operation;
    /// the kernel's CPU time of a 20 ms window can come out 0 on a loaded
    /// machine, which would leave a pair out.
    func testTheSameBinaryExitsZeroAndWritesItsVerdicts() throws {
        let (dir, path) = try planFile()
        let file = { dir.appendingPathComponent($0).path }
        let exe = TestSupport.stressbenchPath
        let r = try TestSupport.cli(["ab", exe, exe, path, "--pairs", "6", "--tolerance", "50%", "--metric", "ns_per_op", "-q",
                                     "--json", file("ab.json"), "--markdown", file("ab.md"), "--junit", file("ab.xml")])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let report = try ResultCoding.decoder().decode(PairedReport.self, from: Data(contentsOf: URL(fileURLWithPath: file("ab.json"))))
        XCTAssertEqual(report.schema, PairedReport.currentSchema)
        XCTAssertEqual(report.exit.code, 0)
        XCTAssertEqual(report.pairsPerCell, 6)
        XCTAssertEqual(report.old.fingerprint, report.new.fingerprint)
        XCTAssertEqual(report.cells.map(\.cell.description), ["counter/pthread-mutex/t1", "counter/mutex/t1"])
        XCTAssertEqual(report.oldTrials.count, 12)
        XCTAssertEqual(report.newTrials.count, 12)
        for c in report.cells {
            XCTAssertEqual(c.pairs.count, 6)
            XCTAssertEqual(c.completePairs, 6, c.reason)
            XCTAssertTrue([.unchanged, .inconclusive].contains(c.verdict), "\(c.verdict): \(c.reason)")
            XCTAssertNotNil(c.ratio)
            XCTAssertNotNil(c.pValueAdjusted)
            XCTAssertEqual(c.pairs.map(\.oldFirst), [true, false, true, false, true, false], "the order alternates")
        }
        XCTAssertTrue(r.stdout.contains("ab: exit code 0 (passed)"), r.stdout)
        let markdown = try String(contentsOfFile: file("ab.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("stressbench ab `ab-test`: passed"), markdown)
        XCTAssertTrue(markdown.contains("`counter/mutex/t1`"), markdown)
        let junit = try String(contentsOfFile: file("ab.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("<testsuites name=\"stressbench ab\" tests=\"26\" failures=\"0\""), junit)
        XCTAssertTrue(junit.contains("counter/mutex/t1: ns_per_op new vs old"), junit)
        XCTAssertEqual(report.settings.metric, .nsPerOp)
    }

    /// `--json -` writes the verdicts to standard output and the summary to
    /// standard error; `--only` selects a cell.
    func testJSONToStandardOutput() throws {
        let (_, path) = try planFile()
        let exe = TestSupport.stressbenchPath
        let r = try TestSupport.cli(["ab", exe, exe, path, "--pairs", "2", "--only", "counter/mutex", "--json", "-", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try ResultCoding.decoder().decode(PairedReport.self, from: Data(r.stdout.utf8))
        XCTAssertEqual(report.cells.map(\.cell.description), ["counter/mutex/t1"])
        XCTAssertEqual(report.cells.first?.verdict, .inconclusive, "2 pairs are too few for a verdict")
        XCTAssertEqual(report.settings.metric, .workerCpuNsPerOp, "the default")
        XCTAssertEqual(report.cells.first?.pairs.count, 2)
        XCTAssertTrue(r.stderr.contains("ab: exit code 0"), r.stderr)
    }

    func testAMissingOrNonExecutableFileIsAUsageError() throws {
        let (dir, path) = try planFile()
        let exe = TestSupport.stressbenchPath
        let missing = dir.appendingPathComponent("no-such-build").path
        var r = try TestSupport.cli(["ab", missing, exe, path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no-such-build: no such file; nothing was run"), r.stderr)
        r = try TestSupport.cli(["ab", exe, path, path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("plan.yaml is not executable"), r.stderr)
        r = try TestSupport.cli(["ab", exe, dir.path, path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("is a directory"), r.stderr)
        r = try TestSupport.cli(["ab", exe, exe, dir.appendingPathComponent("none.yaml").path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("cannot read plan file"), r.stderr)
        r = try TestSupport.cli(["ab", exe, exe, path, "--metric", "p42"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--metric expects one of ns_per_op, cpu_ns_per_op"), r.stderr)
    }

    func testAnExecutableThatIsNotAStressbenchIsRefused() throws {
        let (_, path) = try planFile()
        for program in ["/bin/true", "/bin/false"] where FileManager.default.isExecutableFile(atPath: program) {
            let r = try TestSupport.cli(["ab", TestSupport.stressbenchPath, program, path])
            XCTAssertEqual(r.status, 2, program)
            XCTAssertTrue(r.stderr.contains("\(program) is not a stressbench-compatible executable"), r.stderr)
            XCTAssertTrue(r.stderr.contains("nothing was run"), r.stderr)
        }
    }

    /// The team's own executable knows `seats`; plain stressbench does not,
    /// so it cannot describe the plan and nothing runs.
    func testABuildThatCannotLoadThePlanIsRefused() throws {
        let (_, path) = try planFile(try String(contentsOfFile: WorkloadTestSupport.path("Examples/CustomStressBench/seats.yaml"), encoding: .utf8))
        let r = try TestSupport.cli(["ab", TestSupport.stressbenchPath, WorkloadTestSupport.builtExecutable("custom-stressbench"), path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("cannot run the plan"), r.stderr)
        XCTAssertTrue(r.stderr.contains("seats"), r.stderr)
    }

    /// Two different executables with the same code for the plan's workloads
    /// describe it identically; `_describe` is what `ab` compares.
    func testDescriptionsOfTwoExecutablesWithTheSameWorkloadsAgree() throws {
        let (_, path) = try planFile()
        let old = try BuildHandshake.describe(executable: TestSupport.stressbenchPath, planFile: path, repetitions: 3, allowLarge: false)
        let new = try BuildHandshake.describe(executable: WorkloadTestSupport.builtExecutable("custom-stressbench"), planFile: path,
                                              repetitions: 3, allowLarge: false)
        XCTAssertEqual(old.trials.count, 6)
        XCTAssertEqual(old.workloads.map(\.name), ["counter"])
        XCTAssertEqual(old.strategies.map(\.name), ["pthread-mutex", "mutex"])
        XCTAssertEqual(old.fingerprint, new.fingerprint)
        XCTAssertTrue(BuildComparison(old: old, new: new).comparable)
    }

    /// The calibration builds differ in the code inside `_ab-work`'s step
    /// (one more arithmetic step), not in its shape: `ab` pairs them. Plain
    /// stressbench does not know the workload and cannot describe the plan.
    func testBuildsThatDifferOnlyInsideAStepArePaired() throws {
        let plan = WorkloadTestSupport.path("scripts/ab-calibration.yaml")
        let base = WorkloadTestSupport.builtExecutable("ab-calibration-base")
        let old = try BuildHandshake.describe(executable: base, planFile: plan, repetitions: 2, allowLarge: false)
        let new = try BuildHandshake.describe(executable: WorkloadTestSupport.builtExecutable("ab-calibration-plus1"), planFile: plan,
                                              repetitions: 2, allowLarge: false)
        XCTAssertEqual(old.workloads.map(\.name), ["_ab-work"])
        XCTAssertEqual(old.workloads.first?.forms.first?.operations, ["work ×1: steps and increment (write 0)"])
        XCTAssertEqual(old, new)
        XCTAssertThrowsError(try BuildHandshake.describe(executable: TestSupport.stressbenchPath, planFile: plan, repetitions: 2, allowLarge: false)) {
            XCTAssertTrue("\($0)".contains("cannot run the plan"), "\($0)")
        }
    }

    /// What makes two builds incomparable is listed; what a pull request may
    /// change is only noted.
    func testBuildComparisonListsWhatDiffers() throws {
        let trials = TrialMatrix.expand(try TestSupport.plan(plan))
        let old = BuildDescription(plan: "ab-test", trials: trials, registry: .builtIn)
        var new = old
        XCTAssertEqual(BuildComparison(old: old, new: new), BuildComparison(old: old, new: old))
        new.tool = "stressbench 9.9.9"
        XCTAssertTrue(BuildComparison(old: old, new: new).comparable)
        XCTAssertEqual(BuildComparison(old: old, new: new).notes, ["versions differ: old \(old.tool), new stressbench 9.9.9"])
        XCTAssertEqual(old.fingerprint, new.fingerprint, "the version is not in the fingerprint")
        new.workloads[0].forms[0].operations[0] += ", extra (write 0)"
        var c = BuildComparison(old: old, new: new)
        XCTAssertFalse(c.comparable)
        XCTAssertTrue(c.blocking.first?.hasPrefix("workload counter (") == true, "\(c.blocking)")
        XCTAssertNotEqual(old.fingerprint, new.fingerprint)
        new = old
        new.trials[1].seed += 1
        new.buildConfiguration = old.buildConfiguration == "debug" ? "release" : "debug"
        c = BuildComparison(old: old, new: new)
        XCTAssertEqual(c.blocking.count, 2, "\(c.blocking)")
        XCTAssertTrue(c.blocking.contains { $0.contains("-c release") }, "\(c.blocking)")
        XCTAssertTrue(c.blocking.contains { $0 == "trial \(old.trials[1].id) differs: seed" }, "\(c.blocking)")
    }
}
