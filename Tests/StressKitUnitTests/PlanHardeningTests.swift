import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import XCTest

/// Hostile and absurd plans: loading is bounded, sizes are limited, fuzz
/// settings must leave a trial something to measure, and nothing a plan says
/// reaches the terminal unescaped. Each of these was a defect once.
final class PlanHardeningTests: XCTestCase {
    private func messages(_ yaml: String, allowLarge: Bool = false) -> [String] {
        do {
            _ = try PlanLoader(registry: .builtIn, allowLarge: allowLarge).load(text: yaml, file: "test.yaml")
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    /// An alias tree used as a mapping key: Yams compared such keys as whole
    /// trees while composing, ten times more work per level (18 s at level 8).
    /// Now the shape check refuses it from the parser's events first.
    func testAnAliasTreeAsAKeyIsRefusedBeforeItIsComposed() {
        var lines = ["a0: &a0 [x, y, z, w, v, u, t, s, r, q]"]
        for level in 1...8 { lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]") }
        let asKey = (lines.prefix(4) + ["? *a3", ": 1", "experiments: [{workload: counter}]"]).joined(separator: "\n")
        XCTAssertEqual(messages(asKey), ["test.yaml:5:3: (top level): keys must be plain words, not an alias (*a3)"])
        // The whole tree expands to 10^9 values: refused where it passes the limit.
        let bomb = (lines + ["experiments: [{workload: counter}]", "experiments: 1"]).joined(separator: "\n")
        let problems = messages(bomb)
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems[0].contains("aliases expand the plan past 1000000 values"), problems[0])
    }

    /// A plan that is simply large is told its own size, not blamed on
    /// aliases it does not have; a deeply nested one hears nothing of the
    /// YAML library's API.
    func testSizeAndDepthLimitsAreNamedForWhatTheyAre() {
        let large = "experiments: [{workload: counter}]\nx: [" + Array(repeating: "1", count: 1_000_001).joined(separator: ",") + "]\n"
        let problems = messages(large)
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems[0].contains("the plan has more than 1000000 values (lists, mappings and scalars)"), problems[0])
        XCTAssertFalse(problems[0].contains("alias"), problems[0])

        let deep = "experiments: [{workload: counter}]\nx: " + String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000) + "\n"
        XCTAssertEqual(messages(deep), ["test.yaml:2:5: (top level): not valid YAML or JSON: lists and mappings nested more than 1000 levels deep (a plan needs a few)"])
    }

    func testEveryRepeatedKeyHasItsOwnPathEvenUnderOtherErrors() {
        XCTAssertEqual(messages("""
            experiments:
              - workload: counter
                threads: [0]
                fuzz: {yield: 2, yield: 0.1}
                parameters:
                  read_ratio: 0.5
                  read_ratio: 0.6
            """), [
            "test.yaml:4:22: experiments[0].fuzz.yield: 'yield' is given twice (first at line 4, column 12)",
            "test.yaml:7:7: experiments[0].parameters.read_ratio: 'read_ratio' is given twice (first at line 6)",
        ])
    }

    /// JSON: one message per repeated key, nothing else.
    func testAJSONPlanWithARepeatedKeyGetsOneClearMessage() {
        XCTAssertEqual(messages(#"{"experiments": [{"workload": "counter", "workload": "bank"}]}"#), [
            "test.yaml:1:42: experiments[0].workload: 'workload' is given twice (first at line 1, column 19)",
        ])
    }

    func testProblemsComeInFileOrder() {
        let problems = messages("""
            experiments:
              - workload: counter
                threads: [0]
              - workload: nope
            defaults: {duration: forever}
            order: sideways
            """)
        let lines = problems.compactMap { Int($0.split(separator: ":")[1]) }
        XCTAssertEqual(lines, lines.sorted(), "\(problems)")
        XCTAssertEqual(lines.count, 4, "\(problems)")
    }

    func testNamesAreASCIIAsDocumented() {
        for name in ["план", "ｆｕｌｌ", "naïve", "a b"] {
            XCTAssertEqual(messages("experiments:\n  - workload: counter\n    name: \"\(name)\"\n").count, 1, name)
        }
        XCTAssertEqual(messages("experiments:\n  - workload: counter\n    name: Ab-9_.x\n"), [])
    }

    /// A newline or an ANSI escape in a value is shown escaped: it can neither
    /// forge an `error:` line nor move the cursor.
    func testPlanTextInMessagesIsEscaped() throws {
        let problems = messages("experiments:\n  - workload: \"counter\\nerror: forged\\u001b[2J\"\n")
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].contains(#"unknown workload 'counter\nerror: forged\u{1B}[2J'"#), problems[0])
        XCTAssertFalse(problems[0].unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, problems[0])
        XCTAssertEqual("a\u{202E}b\tc".terminalSafe, #"a\u{202E}b\tc"#, "bidirectional overrides too")
        XCTAssertEqual(RerunCommand.quoted("plans/a\nb.yaml"), #"$'plans/a\x0Ab.yaml'"#, "a rerun command stays on one line and pastes back")
    }

    /// `repetitions: 100k` took 3.3 GB in `validate` (the whole matrix was
    /// made to count it); a bigger matrix trapped on allocation.
    func testAMatrixPastTheLimitIsAPlanErrorNamingItsProduct() {
        XCTAssertEqual(messages("experiments:\n  - workload: counter\n    repetitions: 100k\n"), [
            "test.yaml:2:5: experiments[0]: experiment 'counter' expands to 22 strategies × 1 allocator × 3 thread counts "
                + "× 100000 repetitions = 6600000 trials; a plan may have at most 100000 (fewer repetitions, thread counts or strategies)",
        ])
        let split = messages("experiments:\n  - workload: counter\n    repetitions: 1000\n  - workload: bank\n    repetitions: 1000\n")
        XCTAssertEqual(split.count, 1)
        XCTAssertTrue(split[0].contains("the plan expands to 129000 trials; the largest, experiment 'counter', makes 22 strategies"), split[0])
        let plan = try? PlanLoader(registry: .builtIn).load(text: "experiments:\n  - workload: counter\n    strategies: [mutex]\n", file: "p")
        let runner = PlanRunner(registry: .builtIn, options: RunOptions(repetitions: 50_000))
        XCTAssertNotNil(plan.flatMap(runner.sizeProblem(of:)), "--repetitions counts too")
    }

    func testThousandsOfThreadsOrDaysOfTrialsNeedToBeAskedFor() {
        let threads = "experiments:\n  - workload: counter\n    threads: 4096\n    strategies: [mutex]\n"
        XCTAssertEqual(messages(threads), [
            "test.yaml:2:5: experiments[0]: 4096 threads in one trial is more than 1024: say allow_large: true at the top of the plan "
                + "(or run with --allow-large) if that is what you mean",
        ])
        XCTAssertEqual(messages("allow_large: true\n" + threads), [])
        XCTAssertEqual(messages(threads, allowLarge: true), [])
        let week = "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    duration: 168h\n"
        XCTAssertEqual(messages(week).count, 1)
        XCTAssertTrue(messages(week)[0].contains("the plan would run for about 168h"), "\(messages(week))")
        let plan = try? PlanLoader(registry: .builtIn, allowLarge: true).load(text: threads, file: "p")
        XCTAssertEqual(plan.map { PlanWarnings.warnings($0, usableCores: 2) }?.count, 1, "a warning on a small machine")
        XCTAssertEqual(plan.map { PlanWarnings.warnings($0, usableCores: 512) }, [], "none on a large one")
    }

    func testAHuntThatCannotHappenIsSaidNotSilentlyDropped() throws {
        let text = """
            experiments:
              - {name: free, workload: counter, strategies: [unsynchronized], threads: 2, ops: 10, hunt: 5s}
              - {name: ruled, workload: counter, strategies: [unsynchronized], threads: 2, ops: 10, hunt: 5s, schedule: controlled}
              - {name: quiet, workload: counter, strategies: [unsynchronized], threads: 2, ops: 10, schedule: controlled}
            """
        let plan = try PlanLoader(registry: .builtIn).load(text: text, file: "p")
        let trials = TrialMatrix.expand(plan)
        let warnings = PlanWarnings.huntWarnings(plan, selected: trials, runHuntNs: nil)
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(warnings[0].contains("'ruled' runs controlled, so its `hunt` has no effect"), warnings[0])
        let run = PlanWarnings.huntWarnings(plan, selected: trials, runHuntNs: 3_000_000_000)
        XCTAssertEqual(run.count, 2, "--hunt reaches every experiment, so both controlled ones are named: \(run)")
        XCTAssertTrue(run.allSatisfy { $0.contains("--hunt has no effect") }, "\(run)")
        XCTAssertEqual(PlanWarnings.huntWarnings(plan, selected: trials, runHuntNs: 0), [], "--hunt 0 asks for no hunt")
        let free = trials.map { t -> TrialSpec in var t = t; t.schedule = .free; return t }
        XCTAssertEqual(PlanWarnings.huntWarnings(plan, selected: free, runHuntNs: nil), [], "--schedule free makes them huntable")
    }

    func testAFuzzPauseMustLeaveTheTrialSomethingToMeasure() {
        XCTAssertEqual(messages("experiments:\n  - workload: counter\n    fuzz: {profile: chaos, stagger: 168h}\n"), [
            "test.yaml:3:11: experiments[0].fuzz: fuzz stagger (168h) must be shorter than the measured window (duration 1s): "
                + "the fuzzer's own pauses would leave the trial nothing to measure",
        ])
        XCTAssertEqual(messages("defaults: {fuzz: {profile: chaos, sleep_min: 168h, sleep_max: 168h}}\nexperiments:\n  - workload: counter\n").count, 1)
        XCTAssertEqual(messages("experiments:\n  - workload: counter\n    ops: 100\n    fuzz: {profile: chaos, sleep_max: 10m}\n").count, 1)
        XCTAssertEqual(messages("experiments:\n  - workload: counter\n    fuzz: {profile: chaos, sleep_max: 10ms}\n"), [])
    }
}
