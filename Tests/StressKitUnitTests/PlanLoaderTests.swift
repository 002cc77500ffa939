import AsyncExample
import OwnCodeExample
import StressKit
import StressKitTestSupport
import XCTest

/// Plan parsing, defaults layering, and every validation error path, with the
/// text of the message a user sees.
final class PlanLoaderTests: XCTestCase {
    func testDefaultsAreInheritedAndOverridden() throws {
        let plan = try TestSupport.plan("""
            name: layered
            defaults:
              threads: [2, 8]
              duration: 250ms
              warmup: 10ms
              repetitions: 3
              seed: 7
              strategies: [mutex]
            experiments:
              - workload: counter
              - name: bank-ops
                workload: bank
                parameters: { accounts: 4 }
                threads: 4
                ops: 10k
                strategies: [pthread-mutex, actor]
                timeout: 5s
            """)
        XCTAssertEqual(plan.name, "layered")
        let counter = plan.experiments[0]
        XCTAssertEqual(counter.name, "counter")
        XCTAssertEqual(counter.threads, [2, 8])
        XCTAssertEqual(counter.stop, .duration(nanoseconds: 250_000_000))
        XCTAssertEqual(counter.warmupNs, 10_000_000)
        XCTAssertEqual(counter.repetitions, 3)
        XCTAssertEqual(counter.seed, 7)
        XCTAssertEqual(counter.strategies, ["mutex"])
        XCTAssertNil(counter.timeoutNs)
        XCTAssertEqual(counter.parameters.values["read_ratio"], .number(0))

        let bank = plan.experiments[1]
        XCTAssertEqual(bank.name, "bank-ops")
        XCTAssertEqual(bank.threads, [4])
        XCTAssertEqual(bank.stop, .operations(perThread: 10_000), "ops at experiment level overrides duration in defaults")
        XCTAssertEqual(bank.strategies, ["pthread-mutex", "actor"])
        XCTAssertEqual(bank.timeoutNs, 5_000_000_000)
        XCTAssertEqual(bank.parameters.values["accounts"], .integer(4))
        XCTAssertEqual(bank.parameters.values["initial_balance"], .integer(1_000), "defaults filled in")
    }

    func testBuiltInDefaultsAndAll() throws {
        let plan = try TestSupport.plan("experiments:\n  - workload: counter\n")
        let e = plan.experiments[0]
        XCTAssertEqual(plan.name, "test", "the file's base name")
        XCTAssertEqual(e.threads, PlanDefaults.threads)
        XCTAssertEqual(e.stop, .duration(nanoseconds: PlanDefaults.durationNs))
        XCTAssertEqual(e.repetitions, 1)
        XCTAssertEqual(e.strategies, StressRegistry.builtIn.defaultStrategies.map(\.descriptor.name))
    }

    func testJSONPlansAreAccepted() throws {
        let plan = try TestSupport.plan("""
            {"name": "j", "experiments": [{"workload": "bank", "threads": [1, 2], "ops": 500,
              "strategies": ["mutex"], "parameters": {"accounts": 3, "audit_ratio": 0.5}}]}
            """)
        XCTAssertEqual(plan.experiments[0].threads, [1, 2])
        XCTAssertEqual(plan.experiments[0].parameters.values["audit_ratio"], .number(0.5))
    }

    func testNegativeThreadCountNamesFileKeyPathAndLine() {
        let problems = TestSupport.problems("""
            experiments:
              - workload: counter
              - workload: bank
                threads: [-2, 4]
            """)
        XCTAssertEqual(problems.count, 1)
        let p = problems[0]
        XCTAssertEqual(p.file, "test.yaml")
        XCTAssertEqual(p.path.description, "experiments[1].threads[0]")
        XCTAssertEqual(p.line, 4)
        XCTAssertEqual(p.column, 15)
        XCTAssertEqual(p.description,
                       "test.yaml:4:15: experiments[1].threads[0]: -2 is out of range: expected a thread count (a whole number ≥ 1) from 1 to 4096")
    }

    func testZeroThreadsIsOutOfRange() {
        let p = TestSupport.problems("experiments:\n  - workload: counter\n    threads: 0\n")
        XCTAssertEqual(p.map(\.description), [
            "test.yaml:3:14: experiments[0].threads[0]: 0 is out of range: expected a thread count (a whole number ≥ 1) from 1 to 4096",
        ])
    }

    func testUnknownKeysSuggestTheNearMiss() {
        let p = TestSupport.problems("""
            experiments:
              - workload: counter
                stratgies: [mutex]
            """)
        XCTAssertEqual(p.count, 1)
        XCTAssertEqual(p[0].path.description, "experiments[0].stratgies")
        XCTAssertEqual(p[0].line, 3)
        XCTAssertTrue(p[0].message.hasPrefix("unknown key 'stratgies'; did you mean 'strategies'?"), p[0].message)

        let top = TestSupport.problems("experimets: []\n")
        XCTAssertTrue(top.contains { $0.message.hasPrefix("unknown key 'experimets'; did you mean 'experiments'?") }, "\(top)")
        XCTAssertTrue(top.contains { $0.message.hasPrefix("missing 'experiments'") }, "\(top)")

        let inDefaults = TestSupport.problems("defaults: { workload: bank }\nexperiments: [ { workload: bank } ]\n")
        XCTAssertEqual(inDefaults.first?.path.description, "defaults.workload")
        XCTAssertTrue(inDefaults.first?.message.hasPrefix("unknown key 'workload' (allowed here: strategies, threads,") == true,
                      "\(inDefaults)")
    }

    func testWrongTypes() {
        let p = TestSupport.problems("""
            experiments:
              - workload: counter
                threads: four
                repetitions: "3"
                duration: fast
                seed: [1]
            """)
        XCTAssertEqual(p.map { "\($0.path): \($0.message)" }, [
            "experiments[0].threads[0]: expected a thread count (a whole number ≥ 1), found 'four'",
            "experiments[0].repetitions: expected a positive number of repetitions, found the text \"3\"",
            "experiments[0].duration: expected a duration such as 500ms, 2s or 100us, found 'fast'",
            "experiments[0].seed: expected a non-negative integer seed, found a list",
        ])
    }

    func testUnknownOrderIsLocatedWithTheChoices() {
        let p = TestSupport.problems("""
            order: interleave
            experiments:
              - workload: counter
            """)
        XCTAssertEqual(p.map { "\($0.line ?? 0): \($0.path): \($0.message)" }, [
            "1: order: 'interleave' is not one of matrix, interleaved; did you mean 'interleaved'?",
        ])
    }

    /// `order` when given; else interleaved for a plan meant for comparisons
    /// (a `gate` key, a baseline-relative threshold at any level), matrix otherwise.
    func testOrderDefaultsToInterleavedForPlansMeantForComparison() throws {
        let loader = PlanLoader(registry: .builtIn)
        let body = "experiments:\n  - workload: counter\n"
        let cases: [(String, TrialOrder)] = [
            (body, .matrix),
            ("gate: {}\n" + body, .interleaved),
            ("thresholds: [\"p50 < 1.1 * baseline\"]\n" + body, .interleaved),
            (body + "    thresholds: [\"ops_per_s > 0.9 * baseline\"]\n", .interleaved),
            ("thresholds: [\"p99 < 1ms\"]\n" + body, .matrix),
            ("gate: {}\norder: matrix\n" + body, .matrix),
            ("order: interleaved\n" + body, .interleaved),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try loader.load(text: text).order, expected, text)
        }
    }

    func testUnknownWorkloadAndStrategy() {
        let p = TestSupport.problems("""
            experiments:
              - workload: cuonter
                strategies: [mutex, pthread-mutx]
            """)
        XCTAssertEqual(p.count, 2)
        XCTAssertEqual(p[0].path.description, "experiments[0].workload")
        XCTAssertTrue(p[0].message.hasPrefix("unknown workload 'cuonter'; did you mean 'counter'?"), p[0].message)
        XCTAssertEqual(p[1].path.description, "experiments[0].strategies[1]")
        XCTAssertTrue(p[1].message.hasPrefix("unknown strategy 'pthread-mutx'; did you mean 'pthread-mutex'?"), p[1].message)
    }

    func testParameterValidation() {
        let p = TestSupport.problems("""
            experiments:
              - workload: bank
                parameters:
                  accounts: 1
                  audit_ratio: lots
                  acounts: 3
              - workload: counter
                parameters: { variant: split }
            """)
        XCTAssertEqual(p.map { "\($0.path): \($0.message)" }, [
            "experiments[0].parameters.accounts: 1 is out of range: expected an integer from 2 to 1000000",
            "experiments[0].parameters.audit_ratio: expected a number, found 'lots'",
            "experiments[0].parameters.acounts: unknown key 'acounts'; did you mean 'accounts'? (allowed here: accounts, initial_balance, max_transfer, audit_ratio, deposit_ratio, withdraw_ratio, close_ratio, variant)",
            "experiments[1].parameters.variant: 'split' is not one of correct, split-rmw",
        ])
    }

    func testWorkloadLevelValidationReachesTheUser() {
        let p = TestSupport.problems("""
            experiments:
              - workload: bank
                parameters: { accounts: 1000000, initial_balance: 1000000000000 }
            """)
        XCTAssertEqual(p.first?.path.description, "experiments[0].parameters.initial_balance")
    }

    func testDurationAndOpsAtOneLevelConflict() {
        let p = TestSupport.problems("experiments:\n  - workload: counter\n    duration: 1s\n    ops: 10\n")
        XCTAssertEqual(p.map(\.description), [
            "test.yaml:4:10: experiments[0].ops: set either 'duration' or 'ops' at one level, not both",
        ])
    }

    func testStructuralErrors() {
        XCTAssertEqual(TestSupport.problems("").map(\.message), ["the plan is empty; it needs an 'experiments' list"])
        XCTAssertEqual(TestSupport.problems("experiments: []\n").map(\.message),
                       ["expected a non-empty list of experiments, found a list"])
        XCTAssertEqual(TestSupport.problems("- 1\n").map(\.message),
                       ["expected a mapping (key: value lines), found a list"])
        XCTAssertEqual(TestSupport.problems("experiments:\n  - threads: 2\n").map(\.message),
                       ["missing 'workload' (or 'scenario'): every experiment names what it runs"])
        let dup = TestSupport.problems("experiments:\n  - workload: counter\n  - workload: counter\n")
        XCTAssertEqual(dup.map(\.message), ["experiment name 'counter' is already used by experiments[0]; give each a distinct 'name'"])
        let badName = TestSupport.problems("experiments:\n  - workload: counter\n    name: a b\n")
        XCTAssertTrue(badName.first?.message.hasPrefix("'a b' is not a usable name") == true)
        let twice = TestSupport.problems("experiments:\n  - workload: counter\n    threads: [2, 2]\n    strategies: [mutex, mutex]\n")
        XCTAssertEqual(twice.map(\.message), ["thread count 2 is listed twice", "strategy 'mutex' is listed twice"], "file order")
    }

    func testYAMLSyntaxErrorHasALine() {
        let p = TestSupport.problems("experiments:\n  - workload: counter\n    threads: [1, 2\n")
        XCTAssertEqual(p.count, 1)
        XCTAssertNotNil(p[0].line)
        XCTAssertTrue(p[0].message.hasPrefix("not valid YAML or JSON:"), p[0].message)
    }

    func testDurationsHaveAnUpperBoundInsteadOfATrap() {
        // Each of these used to trap (an Int of a UInt64, or an overflowing sum
        // in the automatic timeout) instead of being refused.
        let p = TestSupport.problems("""
            experiments:
              - workload: counter
                duration: 4611686018s
              - name: long-warmup
                workload: counter
                duration: 9000000000s
                warmup: 9000000000s
              - name: huge
                workload: counter
                timeout: 99999999999999s
                deadlock_after: 169h
            """)
        XCTAssertEqual(p.map(\.description), [
            "test.yaml:3:15: experiments[0].duration: 4611686018s is too long: durations are at most 168h (7 days)",
            "test.yaml:6:15: experiments[1].duration: 9000000000s is too long: durations are at most 168h (7 days)",
            "test.yaml:7:13: experiments[1].warmup: 9000000000s is too long: durations are at most 168h (7 days)",
            "test.yaml:10:14: experiments[2].timeout: 99999999999999s is too long: durations are at most 168h (7 days)",
            "test.yaml:11:21: experiments[2].deadlock_after: 169h is too long: durations are at most 168h (7 days)",
        ])
        // The longest accepted durations expand without overflow.
        let plan = try? TestSupport.plan("allow_large: true\nexperiments:\n  - workload: counter\n    duration: 168h\n    warmup: 168h\n")
        XCTAssertEqual(plan.map(TrialMatrix.expand)?.first?.timeoutNanoseconds, 3 * 604_800_000_000_000 + 10_000_000_000)
    }

    func testDeadlockAfterMustBeShorterThanTheTimeout() {
        let p = TestSupport.problems("""
            defaults: { deadlock_after: 5s }
            experiments:
              - workload: counter
                timeout: 2s
                deadlock_after: 60s
              - name: from-defaults
                workload: counter
                timeout: 3s
              - name: auto
                workload: counter
                ops: 1000
                deadlock_after: 10m
              - name: fine
                workload: counter
                timeout: 6s
            """)
        XCTAssertEqual(p.map(\.description), [
            "test.yaml:5:21: experiments[0].deadlock_after: deadlock_after (60s) must be shorter than the trial timeout (2s) by at least 500ms, "
                + "the time the watchdog keeps to report a stall: "
                + "otherwise a deadlock ends as a bare timeout, without the watchdog's report; shorten deadlock_after or lengthen timeout",
            "test.yaml:8:14: experiments[1].timeout: deadlock_after (5s) must be shorter than the trial timeout (3s) by at least 750ms, "
                + "the time the watchdog keeps to report a stall: "
                + "otherwise a deadlock ends as a bare timeout, without the watchdog's report; shorten deadlock_after or lengthen timeout",
            "test.yaml:12:21: experiments[2].deadlock_after: deadlock_after (10m) must be shorter than the trial timeout (120.1s, automatic: warmup + 2m) by at least 1s, "
                + "the time the watchdog keeps to report a stall: "
                + "otherwise a deadlock ends as a bare timeout, without the watchdog's report; shorten deadlock_after or lengthen timeout",
        ])
        let byDefault = TestSupport.problems("experiments:\n  - workload: counter\n    timeout: 1s\n")
        XCTAssertEqual(byDefault.map(\.description), [
            "test.yaml:3:14: experiments[0].timeout: deadlock_after (2s, the default) must be shorter than the trial timeout (1s) by at least 250ms, "
                + "the time the watchdog keeps to report a stall: "
                + "otherwise a deadlock ends as a bare timeout, without the watchdog's report; shorten deadlock_after or lengthen timeout",
        ])
    }

    func testDuplicateKeyNamesTheRepeatAndItsKeyPath() {
        let block = TestSupport.problems("""
            experiments:
              - workload: counter
                threads: 2
                ops: 10
                threads: 4
            """)
        XCTAssertEqual(block.map(\.description), ["test.yaml:5:5: experiments[0].threads: 'threads' is given twice (first at line 3)"])

        let flow = TestSupport.problems("""
            experiments:
              - workload: counter
                parameters: { read_ratio: 0.1, variant: correct, read_ratio: 0.2 }
              - { workload: bank, ops: 5, ops: 6 }
            defaults: { threads: 2 }
            defaults: {}
            """)
        XCTAssertEqual(flow.map(\.description), [
            "test.yaml:3:54: experiments[0].parameters.read_ratio: 'read_ratio' is given twice (first at line 3, column 19)",
            "test.yaml:4:31: experiments[1].ops: 'ops' is given twice (first at line 4, column 23)",
            "test.yaml:6:1: defaults: 'defaults' is given twice (first at line 5)",
        ])

        let json = TestSupport.problems("""
            {"experiments": [{"workload": "counter",
                              "ops": 5,
                              "ops": 6}]}
            """)
        XCTAssertEqual(json.map(\.description), ["test.yaml:3:19: experiments[0].ops: 'ops' is given twice (first at line 2)"])
    }

    func testMissingFile() {
        XCTAssertThrowsError(try PlanLoader(registry: .builtIn).load(file: "/nonexistent/plan.yaml")) { error in
            let e = error as! PlanError
            XCTAssertEqual(e.problems.first?.description, "/nonexistent/plan.yaml: (top level): cannot read the file: No such file or directory")
        }
    }

    func testEveryShippedPlanIsValid() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Plans")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }
        XCTAssertTrue(files.contains("quickstart.yaml"))
        // What `stressbench` itself registers: the built-ins, the own-code
        // examples and the async ones (Plans/async.yaml).
        var registry = StressRegistry.builtIn
        OwnCodeExamples.register(in: &registry)
        AsyncExamples.register(in: &registry)
        for f in files {
            XCTAssertNoThrow(try PlanLoader(registry: registry).load(file: dir.appendingPathComponent(f).path), f)
        }
        // Plans/tsan/ holds the plans for a ThreadSanitizer build (`sanitizer:
        // thread`, refused by any other build: DataRaceTests): checked as a
        // TSan build reads them. They live apart so that loops over Plans/*.yaml
        // in a plain build (CI's) do not meet them.
        var loader = PlanLoader(registry: registry)
        loader.threadSanitizerBuilt = true
        let tsan = dir.appendingPathComponent("tsan")
        let tsanFiles = try FileManager.default.contentsOfDirectory(atPath: tsan.path).filter { $0.hasSuffix(".yaml") }
        XCTAssertTrue(tsanFiles.contains("data-races.yaml"))
        var plain = loader
        plain.threadSanitizerBuilt = false
        for f in tsanFiles {
            XCTAssertNoThrow(try loader.load(file: tsan.appendingPathComponent(f).path), f)
            XCTAssertThrowsError(try plain.load(file: tsan.appendingPathComponent(f).path), "\(f) runs only in a TSan build")
        }
    }
}
