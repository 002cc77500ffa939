import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// The gate through the built binary: exit code 4, compare, merge, shards and
/// the output files, as a CI job would use them.
final class GateCommandLineTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func write(_ name: String, _ text: String) throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    private func write(_ name: String, _ report: RunReport) throws -> String {
        try ResultCoding.encoder().encode(report).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// A threshold no machine can meet fails the gate with exit code 4, and
    /// the outputs say so; a violation in the same run outranks it with 1.
    func testImpossibleThresholdExitsWithFourAndWritesEveryOutput() throws {
        let plan = try write("gate.yaml", """
            thresholds: ["ops_per_s > 1000G"]
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: [1, 2]
                ops: 2000
                warmup: 0s
            """)
        let r = try TestSupport.cli(["run", plan, "--json", path("r.json"), "--markdown", path("r.md"), "--junit", path("r.xml"),
                                     "--hgrm-dir", path("hgrm")])
        XCTAssertEqual(r.status, 4, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("Thresholds: 2 check(s) on 2 cell(s): 2 failed"), r.stdout)
        XCTAssertTrue(r.stdout.contains("FAILED counter/mutex/t1: ops_per_s > 1000G: ops_per_s = "), r.stdout)
        XCTAssertTrue(r.stdout.contains("rerun: stressbench run \(plan) --only counter/mutex/t1"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("gate: exit code 4 (performance regression)\n"), r.stdout)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path("r.json"))))
        XCTAssertEqual(report.gate?.failedThresholds.count, 2)
        XCTAssertEqual(report.exitCode, .performanceRegression)
        XCTAssertTrue(try String(contentsOfFile: path("r.md"), encoding: .utf8).hasPrefix("## ❌ stressbench `gate`: performance regression (exit code 4)"))
        XCTAssertTrue(try String(contentsOfFile: path("r.xml"), encoding: .utf8).contains("<failure type=\"threshold\""))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("hgrm")).sorted(),
                       ["counter_mutex_t1_r0.hgrm", "counter_mutex_t2_r0.hgrm"])

        let violating = try write("v.yaml", """
            thresholds: ["ops_per_s > 1000G"]
            experiments:
              - workload: counter
                parameters: { variant: split-rmw }
                strategies: [unsynchronized]
                threads: 8         # 2 workers on 2 cores race only while both run: a busy machine hid it
                fuzz: yield        # a yield between the read and the write (bugs.yaml: 50 of 50 seeds)
                duration: 200ms
                warmup: 0s
            """)
        XCTAssertEqual(try TestSupport.cli(["run", violating, "-q"]).status, 1, "a violation outranks a performance failure")
    }

    func testBadThresholdIsAPlanErrorWithLocation() throws {
        let plan = try write("bad.yaml", """
            experiments:
              - workload: counter
                thresholds: ["p99 < 50"]
            """)
        for command in ["run", "validate"] {
            let r = try TestSupport.cli([command, plan])
            XCTAssertEqual(r.status, 2)
            XCTAssertTrue(r.stderr.contains("error: \(plan):3:18: experiments[0].thresholds[0]: 'p99 < 50' is not a threshold: '50' needs a time unit for p99"), r.stderr)
        }
    }

    func testCompareExitsWithFourOnARegressionAndZeroOtherwise() throws {
        let base = try write("base.json", Synthetic.report(Synthetic.cell(throughputs: [1000, 1010, 990, 1005, 995], latencyNs: [1, 1, 1, 1, 1])))
        let slow = try write("slow.json", Synthetic.report(Synthetic.cell(throughputs: [800, 808, 792, 804, 796], latencyNs: [1, 1, 1, 1, 1])))
        let r = try TestSupport.cli(["compare", base, slow, "--metric", "ops_per_s", "--markdown", path("c.md"), "--junit", path("c.xml"), "--json", path("c.json")])
        XCTAssertEqual(r.status, 4, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("e/mutex/t2  5/5  1k ops/s  800 ops/s  0.800 ["), r.stdout)
        XCTAssertTrue(r.stdout.contains("regressed: e/mutex/t2: worse beyond the ±10% tolerance (p = 0.0079)"), r.stdout)
        XCTAssertTrue(try String(contentsOfFile: path("c.xml"), encoding: .utf8).contains("<failure type=\"regression\""))
        XCTAssertTrue(try String(contentsOfFile: path("c.md"), encoding: .utf8).contains("**regressed**"))

        XCTAssertEqual(try TestSupport.cli(["compare", base, base, "--metric", "ops_per_s"]).status, 0)
        XCTAssertEqual(try TestSupport.cli(["compare", base, slow, "--metric", "ops_per_s", "--tolerance", "25%"]).status, 0,
                       "a 20% change is within a 25% tolerance")
        let p50 = try TestSupport.cli(["compare", base, slow])
        XCTAssertEqual(p50.status, 0, "the default metric is p50, which did not change")
        XCTAssertTrue(p50.stdout.contains("Baseline comparison with \(base): p50,"), p50.stdout)
        let bad = try TestSupport.cli(["compare", base, slow, "--tolerance", "lots"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--tolerance expects a fraction such as 10% or 0.1"), bad.stderr)
    }

    /// A baseline with nothing in common with the run is not a pass.
    func testCompareWithAnUnrelatedBaselineExitsWithTwo() throws {
        let base = try write("base.json", Synthetic.report(Synthetic.cell(throughputs: [1000, 1010, 990, 1005, 995], latencyNs: [1, 1, 1, 1, 1])))
        let other = try write("other.json", Synthetic.report(Synthetic.cell(throughputs: [1000, 1010, 990, 1005, 995], latencyNs: [1, 1, 1, 1, 1], strategy: "nslock")))
        let r = try TestSupport.cli(["compare", base, other])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("FAILED: the baseline does not cover this run: no cell of this run could be compared"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("gate: exit code 2 (plan or usage error)\n"), r.stdout)
        XCTAssertEqual(try TestSupport.cli(["compare", base, other, "--allow-partial"]).status, 2, "nothing in common is never a partial pass")
    }

    /// A plan with a `gate` key that leaves repetitions to the default gets as
    /// many as the comparison needs, not 1; one that sets too few is warned.
    func testGatedPlansDefaultToTheRepetitionsTheComparisonNeeds() throws {
        let plan = try write("gated.yaml", "gate: { tolerance: 20% }\nexperiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 500\n    warmup: 0s\n")
        let r = try TestSupport.cli(["run", plan, "--json", path("g.json"), "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path("g.json"))))
        XCTAssertEqual(report.trials.count, 5)
        XCTAssertEqual(report.matrixTrials, 5)
        let few = try write("few.yaml", "gate: {}\nexperiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 500\n    warmup: 0s\n    repetitions: 2\n")
        let warned = try TestSupport.cli(["run", few, "-q"])
        XCTAssertTrue(warned.stderr.contains("warning: experiment 'counter' sets repetitions: 2, but a comparison of this plan's 1 cell(s) needs 5 a side"), warned.stderr)
    }

    /// A plan meant for comparisons (a `gate` key, or a threshold relative to
    /// a baseline) runs repetition first unless it sets `order`; the plan
    /// decides, not a flag, so shards run with and without --baseline still
    /// merge.
    func testPlansMeantForComparisonInterleaveRepetitionsUnlessTheyChooseTheOrder() throws {
        let body = "experiments:\n  - workload: counter\n    strategies: [mutex, nslock]\n    threads: 1\n    ops: 200\n    warmup: 0s\n    repetitions: 5\n"
        func order(_ plan: String, _ options: [String] = [], into file: String = "o.json") throws -> [String] {
            let r = try TestSupport.cli(["run", plan, "--json", path(file), "-q"] + options)
            XCTAssertTrue([0, 4].contains(r.status), r.stderr)
            let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path(file))))
            return report.trials.map(\.trial.id)
        }
        let matrix = (0..<5).map { "counter/mutex/t1/r\($0)" } + (0..<5).map { "counter/nslock/t1/r\($0)" }
        let interleaved = (0..<5).flatMap { ["counter/mutex/t1/r\($0)", "counter/nslock/t1/r\($0)"] }

        let plain = try write("plain.yaml", body)
        XCTAssertEqual(try order(plain, into: "base.json"), matrix, "a plan nobody gates keeps the matrix order")
        XCTAssertEqual(try order(plain, ["--baseline", path("base.json")]), matrix, "a flag does not change the order")
        let gated = try write("gated.yaml", "gate: {}\n" + body)
        XCTAssertEqual(try order(gated), interleaved, "the baseline run of a gated plan is interleaved too")
        let relative = try write("relative.yaml", "thresholds: [\"p50 < 2 * baseline\"]\n" + body)
        XCTAssertEqual(try order(relative, ["--baseline", path("base.json")]), interleaved)
        let chosen = try write("chosen.yaml", "gate: {}\norder: matrix\n" + body)
        XCTAssertEqual(try order(chosen), matrix, "the plan's own choice stands")

        // Shards of the gated plan, one compared and one not, are one run.
        XCTAssertEqual(try order(gated, ["--shard", "1/2", "--baseline", path("base.json"), "--allow-partial"], into: "s1.json").count, 5)
        XCTAssertEqual(try order(gated, ["--shard", "2/2"], into: "s2.json").count, 5)
        let merged = try TestSupport.cli(["merge", path("s1.json"), path("s2.json"), "-o", path("m.json")])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let all = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path("m.json"))))
        XCTAssertEqual(all.trials.map(\.trial.id), interleaved)
    }

    func testUnreadableResultsFilesAreUsageErrors() throws {
        let garbage = try write("garbage.json", "not json")
        var old = Synthetic.report([])
        old.schema = "stressbench.results/0"
        let oldFile = try write("old.json", old)
        let missing = try TestSupport.cli(["compare", path("nope.json"), garbage])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("cannot read results file \(path("nope.json"))"), missing.stderr)
        let notJSON = try TestSupport.cli(["compare", garbage, garbage])
        XCTAssertTrue(notJSON.stderr.contains("\(garbage) is not a stressbench results file"), notJSON.stderr)
        let schema = try TestSupport.cli(["merge", oldFile, "-o", path("m.json")])
        XCTAssertEqual(schema.status, 2)
        XCTAssertTrue(schema.stderr.contains("\(oldFile) has schema 'stressbench.results/0'; this stressbench reads 'stressbench.results/1'"), schema.stderr)
        let baseline = try TestSupport.cli(["run", try write("p.yaml", "experiments:\n  - workload: counter\n"), "--baseline", garbage])
        XCTAssertEqual(baseline.status, 2, "a bad baseline stops the run before it starts")
    }

    func testShardsRunSeparatelyMergeBackAndDuplicatesAreRefused() throws {
        let plan = try write("shards.yaml", """
            experiments:
              - workload: counter
                strategies: [mutex, nslock, pthread-mutex]
                threads: [1, 2]
                ops: 1000
                warmup: 0s
            """)
        var files: [String] = []
        var seen: [String] = []
        for i in 1...3 {
            let out = path("s\(i).json")
            let r = try TestSupport.cli(["run", plan, "--shard", "\(i)/3", "--json", out, "-q"])
            XCTAssertEqual(r.status, 0, r.stderr)
            files.append(out)
            let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
            seen += report.trials.map(\.trial.id)
        }
        XCTAssertEqual(seen.count, 6)
        XCTAssertEqual(Set(seen).count, 6)
        let merged = try TestSupport.cli(["merge"] + files + ["-o", path("all.json"), "--csv", path("all.csv")])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("merged 3 file(s): 6 of 6 trial(s) of plan shards"), merged.stdout)
        let all = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path("all.json"))))
        XCTAssertEqual(all.trials.map(\.trial.index), Array(0..<6))
        XCTAssertEqual(try String(contentsOfFile: path("all.csv"), encoding: .utf8).split(separator: "\n").count, 7)

        let missing = try TestSupport.cli(["merge", files[0], files[2], "-o", path("part.json")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("shard(s) 2/3 missing"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("part.json")))
        let allowed = try TestSupport.cli(["merge", files[0], files[2], "-o", path("part.json"), "--allow-partial"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stdout.contains(" of 6 trial(s) of plan shards"), allowed.stdout)

        let twice = try TestSupport.cli(["merge", files[0], files[0], "-o", path("bad.json")])
        XCTAssertEqual(twice.status, 2)
        XCTAssertTrue(twice.stderr.contains("appears in both \(files[0]) and \(files[0]) (twice)"), twice.stderr)
        let badShard = try TestSupport.cli(["run", plan, "--shard", "4/3"])
        XCTAssertEqual(badShard.status, 2)
        XCTAssertTrue(badShard.stderr.contains("--shard 4/3: expected 1 ≤ i ≤ n and n ≥ 1"), badShard.stderr)
    }

    func testHelpDocumentsExitCodeFourAndPrecedence() throws {
        let r = try TestSupport.cli(["--help"])
        XCTAssertTrue(r.stdout.contains("4  performance regression: a failed threshold, or a regression vs --baseline"), r.stdout)
        XCTAssertTrue(r.stdout.contains("When several apply: 2 > 3 > 1 > 4"), r.stdout)
        let run = try TestSupport.cli(["help", "run"])
        XCTAssertTrue(run.stdout.contains("--baseline <file>"), run.stdout)
        XCTAssertTrue(run.stdout.contains("--shard <i/n>"), run.stdout)
    }

    /// On a terminal (a pseudo-terminal from util-linux `script`) the status
    /// line appears, is redrawn in place, and is cleared before the report.
    func testTerminalRunShowsAStatusLineWithElapsedAndRemainingTime() throws {
        let plan = try write("tty.yaml", "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: [1, 2]\n    ops: 1000\n    warmup: 0s\n")
        // Only standard error goes to the terminal; the report goes to a file.
        let (status, screen) = try TestSupport.onTerminal("'\(TestSupport.stressbenchPath)' run '\(plan)' > '\(path("out.txt"))'")
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("\r\u{1B}[K[1/2] counter/mutex/t1/r0 · elapsed 0s · about "), screen.debugDescription)
        XCTAssertTrue(screen.contains("[2/2] counter/mutex/t2/r0 · elapsed"), screen.debugDescription)
        XCTAssertTrue(screen.hasSuffix("left\r\u{1B}[K"), "the status line is cleared at the end: \(screen.debugDescription)")
        XCTAssertFalse(screen.contains(": passed"), "passed trials only advance the status line on a terminal")
        XCTAssertTrue(try String(contentsOfFile: path("out.txt"), encoding: .utf8).contains("2 trial(s): 2 passed"))
    }

    /// Not a terminal (a CI log, a pipe): no progress at all on standard
    /// error; the table and summary still go to standard output.
    func testPipedRunPrintsNoProgress() throws {
        let plan = try write("progress.yaml", "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: [1, 2]\n    ops: 1000\n    warmup: 0s\n")
        let r = try TestSupport.cli(["run", plan, "--json", path("p.json")])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stderr, "wrote \(path("p.json"))\n", "only the file written, no progress lines")
        XCTAssertTrue(r.stdout.contains("2 trial(s): 2 passed"), r.stdout)
    }
}
