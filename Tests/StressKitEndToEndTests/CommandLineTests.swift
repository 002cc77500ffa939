import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The `stressbench` binary as a user runs it: exit codes, messages, files.
final class CommandLineTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestSupport.temporaryDirectory()
    }

    private func writePlan(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testBadPlanExitsWithTwoAndLocatesEveryProblem() throws {
        let plan = try writePlan("bad.yaml", """
            experiments:
              - workload: counter
              - workload: bank
                threads: [-2]
                stratgies: [mutex]
            """)
        for command in ["run", "validate"] {
            let r = try TestSupport.cli([command, plan])
            XCTAssertEqual(r.status, 2, command)
            XCTAssertTrue(r.stderr.contains("error: \(plan):4:15: experiments[1].threads[0]: -2 is out of range"), r.stderr)
            XCTAssertTrue(r.stderr.contains("error: \(plan):5:5: experiments[1].stratgies: unknown key 'stratgies'; did you mean 'strategies'?"), r.stderr)
        }
    }

    func testHugeDurationAndDuplicateKeyAreLocatedErrorsNotTraps() throws {
        let plan = try writePlan("huge.yaml", """
            experiments:
              - workload: counter
                duration: 9000000000s
                warmup: 9000000000s
                threads: 1
                threads: 2
            """)
        for command in ["run", "validate"] {
            let r = try TestSupport.cli([command, plan])
            XCTAssertEqual(r.status, 2, command + r.stderr)
            XCTAssertEqual(r.stderr, "error: \(plan):6:5: experiments[0].threads: 'threads' is given twice (first at line 5)\n",
                           "one line in the usual form, at the repeat")
        }
        let fixed = try writePlan("huge2.yaml", "experiments:\n  - workload: counter\n    duration: 9000000000s\n    warmup: 9000000000s\n")
        let r = try TestSupport.cli(["run", fixed])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("error: \(fixed):3:15: experiments[0].duration: 9000000000s is too long"), r.stderr)
    }

    /// `--warmup 0s` is refused for a plan that paces an experiment at a
    /// share of its capacity, which is measured during the warm-up (as the
    /// plan's own `warmup: 0` would be); a warm-up of its own is taken.
    func testNoWarmupIsRefusedWhereAPacedShareIsCalibratedInIt() throws {
        let plan = try writePlan("paced.yaml", """
            experiments:
              - { name: paced, workload: counter, strategies: [mutex], threads: 1, duration: 50ms, warmup: 50ms, load: { mode: paced, rate: 50% } }
            """)
        let refused = try TestSupport.cli(["run", plan, "--warmup", "0s", "-q"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--warmup 0s: experiment 'paced' paces its load at a share of its capacity, which is measured during the warm-up"),
                      refused.stderr)
        let taken = try TestSupport.cli(["run", plan, "--warmup", "20ms", "-q"])
        XCTAssertEqual(taken.status, 0, taken.stderr)
    }

    func testValidateAcceptsGoodPlans() throws {
        let plan = try writePlan("good.yaml", "experiments:\n  - workload: counter\n    strategies: [mutex, actor]\n")
        let r = try TestSupport.cli(["validate", plan])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "ok: \(plan): 1 experiment(s), 6 trial(s)\n")
    }

    func testRunWritesJSONAndCSVAndExitsWithTheOutcomeCode() throws {
        let plan = try writePlan("run.yaml", """
            experiments:
              - workload: counter
                strategies: [pthread-mutex]
                threads: [1, 2]
                ops: 2000
                warmup: 0s
            """)
        let json = dir.appendingPathComponent("r.json").path, csv = dir.appendingPathComponent("r.csv").path
        let r = try TestSupport.cli(["run", plan, "--json", json, "--csv", csv])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Latency is service time per operation"))
        // The table says which clock timed the ops and how many were timed.
        XCTAssertTrue(r.stdout.contains("\nTiming: "), r.stdout)
        XCTAssertTrue(r.stdout.contains(" a read); "), r.stdout)
        XCTAssertTrue(r.stdout.contains("sample: auto") || r.stdout.contains("every operation timed"), r.stdout)
        XCTAssertTrue(r.stdout.contains("counter   pthread-mutex        2"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("2 trial(s): 2 passed; exit code 0\n"), r.stdout)
        XCTAssertFalse(r.stderr.contains("[2/2]"), "no progress when standard error is not a terminal: \(r.stderr)")
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.trials.count, 2)
        XCTAssertEqual(report.environment.buildConfiguration.isEmpty, false)
        XCTAssertEqual(try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").count, 3)

        let quiet = try TestSupport.cli(["run", plan, "--only", "counter/pthread-mutex/t1/r0", "--seed", "5", "-q"])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stderr, "")
        XCTAssertTrue(quiet.stdout.contains("1 trial(s): 1 passed"))

        let none = try TestSupport.cli(["run", plan, "--only", "nothing"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("--only matched no trial; ids look like: counter/pthread-mutex/t1/r0"), none.stderr)
    }

    func testViolationsAndCrashesSetTheExitCode() throws {
        let violating = try writePlan("v.yaml", """
            experiments:
              # A split read-modify-write with a yield between the halves: a lost
              # update within milliseconds, even with both threads on one core.
              - workload: counter
                strategies: [mutex]
                threads: 4
                duration: 300ms
                parameters: { variant: split-rmw }
                fuzz: yield
            """)
        let v = try TestSupport.cli(["run", violating, "-q"])
        XCTAssertEqual(v.status, 1, v.stdout)
        XCTAssertTrue(v.stdout.contains("rerun: stressbench run \(violating) --only counter/mutex/t4/r0 --seed "), v.stdout)

        let crashing = try writePlan("c.yaml", """
            experiments:
              - workload: _fault
                parameters: { mode: trap, after_ops: 1 }
                strategies: [mutex]
                threads: 1
                ops: 10
              # A split read-modify-write with a yield between the halves: a lost
              # update within milliseconds, even with both threads on one core.
              - workload: counter
                strategies: [mutex]
                threads: 4
                duration: 300ms
                parameters: { variant: split-rmw }
                fuzz: yield
            """)
        let c = try TestSupport.cli(["run", crashing, "-q"], executable: TestSupport.fixturesPath)
        XCTAssertEqual(c.status, 3, "a crash outranks a violation")
        XCTAssertTrue(c.stdout.contains("Fatal error: injected trap at op #1"), c.stdout)
    }

    func testHelpVersionListAndUsageErrors() throws {
        let help = try TestSupport.cli(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("Exit codes:"), help.stdout)
        XCTAssertTrue(help.stdout.contains("run"))
        XCTAssertFalse(help.stdout.contains("_trial"), "the trial command is hidden")
        // The examples name the command as it was run (here found on PATH),
        // one to a line, short enough not to wrap: each pastes as is.
        XCTAssertTrue(help.stdout.contains("\n  stressbench list\n  stressbench validate Plans/quickstart.yaml\n"), help.stdout)

        let runHelp = try TestSupport.cli(["help", "run"])
        XCTAssertEqual(runHelp.status, 0)
        XCTAssertTrue(runHelp.stdout.contains("--in-process"))

        let version = try TestSupport.cli(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.stdout, "stressbench \(StressKitVersion.current)\n")

        let list = try TestSupport.cli(["list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("bank"))
        XCTAssertTrue(list.stdout.contains("accounts: number of accounts [integer 2...1000000; default 16]"), list.stdout)
        XCTAssertTrue(list.stdout.contains("pthread-mutex"))
        // Scenarios under a heading of their own, between workloads and strategies.
        let scenarios = try XCTUnwrap(list.stdout.range(of: "\nScenarios (plan key: scenario;"), list.stdout)
        let strategies = try XCTUnwrap(list.stdout.range(of: "\nStrategies (plan key: strategies;"), list.stdout)
        let scenarioSection = list.stdout[scenarios.upperBound..<strategies.lowerBound]
        for name in ["store-buffering", "message-passing", "load-buffering", "dekker", "empty"] {
            XCTAssertTrue(scenarioSection.contains("\n  \(name)\n"), "\(name) is not listed under Scenarios:\n\(list.stdout)")
        }
        XCTAssertTrue(scenarioSection.contains("- ordering: "), "the litmus tests' ordering parameter")
        XCTAssertFalse(list.stdout[..<scenarios.lowerBound].contains("\n  dekker\n"), "a scenario is not a workload")
        XCTAssertFalse(list.stdout.contains("_busywork"), "hidden unless --all")
        let all = try TestSupport.cli(["list", "--all"]).stdout
        XCTAssertTrue(all.contains("_busywork"), all)
        // The test fixtures are not built-ins: only the tests' own binary knows them.
        for fixture in ["_fault", "_hang-in-round", "_stuck-in-round", "_unnamed-lock-order"] {
            XCTAssertFalse(all.contains(fixture), "\(fixture) ships in stressbench:\n\(all)")
            XCTAssertTrue(try TestSupport.cli(["list", "--all"], executable: TestSupport.fixturesPath).stdout.contains(fixture), fixture)
        }
        // Nor do the benchmark commands ship: they are stressbench-dev's.
        for command in ["_baseline", "_overhead", "_primitives"] {
            let gone = try TestSupport.cli([command])
            XCTAssertEqual(gone.status, 2, "\(command): \(gone.stdout)")
        }

        let bad = try TestSupport.cli(["run"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("Missing expected argument '<plan>'"), bad.stderr)
        XCTAssertEqual(try TestSupport.cli(["frobnicate"]).status, 2)
        XCTAssertEqual(try TestSupport.cli(["run", "x.yaml", "--trial-timeout", "soon"]).status, 2)
        let plan = try writePlan("ok.yaml", "experiments:\n  - workload: counter\n    ops: 10\n")
        for flag in ["--trial-timeout", "--deadlock-after"] {
            let long = try TestSupport.cli(["run", plan, flag, "9300000000s"])
            XCTAssertEqual(long.status, 2, "\(flag): \(long.stderr)")
            XCTAssertTrue(long.stderr.contains("\(flag): 9300000000s is too long: durations are at most 168h (7 days)"), long.stderr)
        }
        let inverted = try TestSupport.cli(["run", plan, "--deadlock-after", "60s", "--trial-timeout", "2s"])
        XCTAssertEqual(inverted.status, 2, inverted.stderr)
        XCTAssertTrue(inverted.stderr.contains(
            "the watchdog's limit (--deadlock-after 60s) must be shorter than the trial timeout (--trial-timeout 2s)"), inverted.stderr)
        let againstPlan = try TestSupport.cli(["run", plan, "--trial-timeout", "1s"])
        XCTAssertEqual(againstPlan.status, 2, againstPlan.stderr)
        XCTAssertTrue(againstPlan.stderr.contains(
            "the watchdog's limit (deadlock_after 2s) must be shorter than the trial timeout (--trial-timeout 1s)"), againstPlan.stderr)

        // A negative value is the option's own error, not "Missing value".
        for (flag, value, words) in [("--duration", "-1s", "--duration expects a positive duration such as 30s or 500ms, got '-1s'"),
                                     ("--trial-timeout", "-5s", "--trial-timeout expects a positive duration"),
                                     ("--warmup", "-5ms", "--warmup expects a duration such as 50ms, or 0s for none, got '-5ms'"),
                                     ("--warmup", "200h", "--warmup: 200h is too long: durations are at most 168h (7 days)"),
                                     ("--repetitions", "-1", "--repetitions expects a number from 1 to 100000, got -1")] {
            let negative = try TestSupport.cli(["run", plan, flag, value])
            XCTAssertEqual(negative.status, 2, "\(flag) \(value): \(negative.stderr)")
            XCTAssertTrue(negative.stderr.contains(words), negative.stderr)
        }
        // The command line takes the seeds a plan takes: below 2^53.
        for command in ["run", "replay"] {
            let big = try TestSupport.cli([command, plan, "--seed", "9007199254740993"] + (command == "replay" ? ["--only", "counter"] : []))
            XCTAssertEqual(big.status, 2, big.stderr)
            XCTAssertTrue(big.stderr.contains("--seed expects a non-negative integer below 2^53 (9007199254740992)"), big.stderr)
        }

        let missing = try TestSupport.cli(["run", dir.appendingPathComponent("missing.yaml").path])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("cannot read the file: No such file or directory"), missing.stderr)
    }

    /// `stressbench-dev baseline`, as `scripts/bench-lock-overhead.sh` and
    /// `scripts/bench-builds.py` read it: one line per loop, in the order asked,
    /// with the ns/op second to last; the warm-up (rounds, then milliseconds)
    /// is accepted and not reported; bad counts are usage errors, not traps.
    func testBaselineCommandPrintsWhatTheOverheadScriptsRead() throws {
        let r = try TestSupport.cli(["baseline", "pthread-mutex", "mutex", "--iterations", "1000", "--warmup-rounds", "1", "--warmup-ms", "1", "--rounds", "1"],
                                    executable: TestSupport.devToolPath)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(lines.map(\.first), ["pthread-mutex", "mutex"], r.stdout)
        for fields in lines {
            XCTAssertEqual(fields.last, "ns/op", r.stdout)
            XCTAssertGreaterThan(Double(fields[fields.count - 2]) ?? 0, 0, r.stdout)
            XCTAssertEqual(Array(fields[1...2]), ["1000", "iterations"], r.stdout)
        }
        // The loops run beside a second thread, as a trial does, so that glibc
        // takes the lock paths a program with threads takes, not the
        // single-threaded ones without atomic instructions.
        XCTAssertTrue(r.stderr.contains("2 threads in the process"), r.stderr)
        XCTAssertFalse(r.stderr.contains("warning"), r.stderr)
        for flag in ["--warmup-rounds=-1", "--warmup-ms=-1", "--warmup-ms=3600001", "--rounds=0"] {
            let bad = try TestSupport.cli(["baseline", "mutex", flag], executable: TestSupport.devToolPath)
            XCTAssertEqual(bad.status, 2, "\(flag): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains("must be at least") || bad.stderr.contains("must be from"), bad.stderr)
        }
    }

    /// `stressbench-dev overhead`, as `scripts/bench-lock-overhead.sh`
    /// reads it: a line per pair of five numbers (harness ns/op, hand-loop
    /// ns/op, the interval the trial timed at, the clock read's cost, the timed
    /// hand loop's ns/op or nan); `--sample 1` times every operation and pairs
    /// the hand loop with clock reads when the trial timed on the CPU's counter;
    /// bad input is a usage error naming what is wrong.
    func testOverheadCommandPrintsPairsTheScriptReads() throws {
        for sample in ["auto", "1"] {
            let r = try TestSupport.cli(["overhead", "mutex", "--pairs", "3", "--iterations", "2000", "--warmup-ms", "1", "--sample", sample],
                                        executable: TestSupport.devToolPath)
            XCTAssertEqual(r.status, 0, r.stderr)
            let rows = r.stdout.split(separator: "\n").map { $0.split(separator: " ").map { Double($0) } }
            XCTAssertEqual(rows.count, 3, r.stdout)
            for row in rows {
                XCTAssertEqual(row.count, 5, r.stdout)
                guard row.count == 5, let harness = row[0], let hand = row[1], let every = row[2], let read = row[3], let timed = row[4] else {
                    XCTFail("not five numbers: \(r.stdout)")
                    continue
                }
                XCTAssertGreaterThan(harness, 0, r.stdout)
                XCTAssertGreaterThan(hand, 0, r.stdout)
                XCTAssertGreaterThan(read, 0, r.stdout)
                if sample == "1" {
                    XCTAssertEqual(every, 1, r.stdout)
                    // Only a trial on the CPU's counter has a timed hand loop for a partner.
                    XCTAssertTrue(timed > 0 || timed.isNaN, r.stdout)
                } else {
                    XCTAssertGreaterThanOrEqual(every, 1, r.stdout)
                    XCTAssertTrue(timed.isNaN, r.stdout)
                }
            }
        }
        for (args, message) in [
            (["overhead", "spinlock"], "unknown lock 'spinlock'"),
            (["overhead", "mutex", "--sample", "0"], "--sample must be"),
            (["overhead", "mutex", "--pairs", "0"], "--pairs must be at least 1"),
            (["overhead", "mutex", "--warmup-ms", "0"], "--warmup-ms must be from 1"),
            // The name it had in stressbench still works, for scripts that time older builds.
            (["_overhead", "mutex", "--iterations", "7"], "--iterations must be at least 8"),
        ] {
            let bad = try TestSupport.cli(args, executable: TestSupport.devToolPath)
            XCTAssertEqual(bad.status, 2, "\(args): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains(message), bad.stderr)
        }
    }

    /// What `help run` says about --in-process is what happens: the watchdog
    /// reports a hang and the run ends with status 3 (no timeout applies).
    func testInProcessHelpMatchesWhatAHangDoes() throws {
        let help = try TestSupport.cli(["help", "run"]).stdout.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        XCTAssertTrue(help.contains("a deadlock or hang is printed by the watchdog and ends the run with status 3; trial timeouts do not apply"), help)
        let plan = try writePlan("hang.yaml", """
            experiments:
              - workload: _fault
                parameters: { mode: hang, where: outside, after_ops: 10 }
                strategies: [pthread-mutex]
                threads: 1
                ops: 1000
                warmup: 0s
                deadlock_after: 300ms
            """)
        let r = try TestSupport.cli(["run", plan, "--in-process", "-q"], executable: TestSupport.fixturesPath)
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("stressbench: trial _fault/pthread-mutex/t1/r0: hang: no worker completed an operation for"), r.stderr)
    }

    /// The plan-format block (docs/plans.md) names every key the loader
    /// accepts, and the quick start's running time is the same in the README
    /// and the plan.
    func testTheDocumentationNamesEveryPlanKeyAndOneQuickStartTime() throws {
        let reference = try DocumentationPages.page(containing: "```yaml\nname: example")
        let block = try XCTUnwrap(reference.text.components(separatedBy: "```yaml\nname: example").dropFirst().first?
            .components(separatedBy: "```").first)
        for key in Set(PlanLoader.topKeys + PlanLoader.experimentKeys) {
            XCTAssertTrue(block.contains("\n\(key):") || block.contains(" \(key):"), "\(reference.path)'s plan format lacks '\(key)'")
        }
        let readme = try String(contentsOfFile: WorkloadTestSupport.path("README.md"), encoding: .utf8)
        let plan = try String(contentsOfFile: WorkloadTestSupport.path("Plans/quickstart.yaml"), encoding: .utf8)
        let seconds = { (text: String, prefix: String) -> String? in
            text.components(separatedBy: prefix).dropFirst().first?.split(separator: " ").first.map(String.init)
        }
        let inReadme = try XCTUnwrap(seconds(readme, "the plan then runs in\nabout "))
        XCTAssertEqual(seconds(plan, "# It finishes in about "), inReadme)
    }
}
