import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import Synchronization
import XCTest

/// A team's own scenario, written against the public API from outside: two
/// roles increment a shared counter with a read and a write in separate
/// critical sections (a lost update) or in one.
struct TwoIncrementsScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "two-increments", summary: "two roles increment one counter once each",
        parameters: [.flag("split", "read and write in separate critical sections (the lost update)", default: false)])

    final class State: @unchecked Sendable {
        // @unchecked: the strategy under test guards the counter.
        var counter = 0
    }

    let split: Bool
    init(parameters: WorkloadParameters) throws { split = try parameters.flag("split") }

    func roles() -> [Role<State>] {
        let steps: [Step<State>] = split
            ? [.read("load") { s, f in f.r0 = s.counter; return .next }, .write("store") { s, f in s.counter = f.r0 + 1; return .next }]
            : [.write("increment") { s, _ in s.counter += 1; return .next }]
        return [Role("a", steps: steps), Role("b", steps: steps)]
    }

    func makeState() -> State { State() }
    func arbiter(_ s: State) -> RoundOutcome { RoundOutcome(s.counter) }
    func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        outcome == RoundOutcome(2) ? .acceptable : .forbidden("an increment was lost")
    }
}

/// A scenario whose every grade shows, by construction: each state counts
/// the rounds run on it, and the outcome is that count modulo 3 (0
/// acceptable, 1 interesting, 2 forbidden). So the outputs' `forbidden` and
/// `interesting` counts are non-zero without waiting for a race.
struct ThreeGradesScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "test-three-grades", summary: "every grade, by construction", parameters: [])

    final class State: @unchecked Sendable {
        // @unchecked: only role a writes, and the round barrier orders it
        // before the arbiter's read.
        var rounds = 0
    }

    init(parameters: WorkloadParameters) throws {}

    func roles() -> [Role<State>] {
        [Role("a", steps: [.unguarded("count") { s, _ in s.rounds += 1; return .next }]),
         Role("b", steps: [.unguarded("idle") { _, _ in .next }])]
    }

    func makeState() -> State { State() }
    /// The same state, so its count goes on from round to round.
    func reset(_ state: State) -> State { state }
    func arbiter(_ s: State) -> RoundOutcome { RoundOutcome(s.rounds % 3) }
    func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        switch outcome {
        case RoundOutcome(1): return .interesting("one past a multiple of three")
        case RoundOutcome(2): return .forbidden("two past a multiple of three")
        default: return .acceptable
        }
    }
}

/// Scenarios: rounds, grading, per-round fuzzing, stalled rounds, plan errors
/// and every output. No measured figure (a rate, how often a relaxed outcome
/// shows) is asserted: those are the benchmark's (scripts/bench-scenarios.py).
final class ScenarioTests: XCTestCase {
    private var registry: StressRegistry {
        var r = StressRegistry.builtIn
        r.register(scenario: TwoIncrementsScenario.self)
        r.register(scenario: ThreeGradesScenario.self)
        return r
    }

    // MARK: - Outcomes and grading

    func testOutcomesRenderAsTheirValuesAndCompareByThem() {
        XCTAssertEqual(RoundOutcome(0, 0).description, "0, 0")
        XCTAssertEqual(RoundOutcome().description, "()")
        XCTAssertEqual(RoundOutcome(1, 2, 3).values, [1, 2, 3])
        XCTAssertEqual(RoundOutcome(1, 0).violating("why"), RoundOutcome(1, 0), "a violation message is not part of the outcome")
        XCTAssertNotEqual(RoundOutcome(1), RoundOutcome(1, 0))
        XCTAssertEqual(OutcomeGrade.interesting("x").name, "interesting")
        XCTAssertEqual(OutcomeGrade.forbidden("why").meaning, "why")
    }

    func testOutcomesAreCountedPerWorkerGradedOnceAndMergedInOrder() {
        let graded = Mutex(0)
        let grade: (RoundOutcome) -> OutcomeGrade = { o in
            graded.withLock { $0 += 1 }
            switch o {
            case RoundOutcome(0, 0): return .interesting("both zero")
            case RoundOutcome(1, 1): return .forbidden("both one")
            default: return .acceptable
            }
        }
        var a = OutcomeTable(), b = OutcomeTable()
        defer { a.deallocate(); b.deallocate() }
        for round in 0..<10 { _ = a.count(RoundOutcome(1, 0), round: round, measured: round >= 5, grade: grade) }
        XCTAssertEqual(a.count(RoundOutcome(0, 0), round: 10, measured: true, grade: grade).grade, .interesting)
        let first = b.count(RoundOutcome(1, 1), round: 3, measured: true, grade: grade)
        XCTAssertEqual(first.grade, .forbidden)
        XCTAssertTrue(first.first)
        XCTAssertFalse(b.count(RoundOutcome(1, 1), round: 7, measured: true, grade: grade).first)
        _ = b.count(RoundOutcome(0, 0), round: 1, measured: false, grade: grade)
        XCTAssertEqual(graded.withLock { $0 }, 4, "each distinct outcome graded once per worker")
        let merged = OutcomeTable.merge([a, b], grade: grade)
        XCTAssertEqual(merged.rounds, 14)
        XCTAssertEqual(merged.measured, 8)
        XCTAssertEqual(merged.outcomes, [
            OutcomeCount(outcome: "1, 0", count: 10, grade: "acceptable"),
            OutcomeCount(outcome: "0, 0", count: 2, grade: "interesting", meaning: "both zero", firstRound: 1),
            OutcomeCount(outcome: "1, 1", count: 2, grade: "forbidden", meaning: "both one", firstRound: 3),
        ])
    }

    func testMoreDistinctOutcomesThanATableHoldsAreCountedAsOther() {
        var table = OutcomeTable()
        defer { table.deallocate() }
        for v in 0..<(OutcomeTable.capacity + 10) { _ = table.count(RoundOutcome(v), round: v, measured: true) { _ in .acceptable } }
        let merged = OutcomeTable.merge([table]) { _ in .acceptable }
        XCTAssertEqual(merged.rounds, OutcomeTable.capacity + 10)
        XCTAssertEqual(merged.outcomes.last, OutcomeCount(outcome: "(other)", count: 10, grade: "acceptable",
                                                          meaning: "more than 256 distinct outcomes on one worker: these were counted, not told apart"))
    }

    // MARK: - Per-round fuzzing

    /// Soft PCT in a scenario draws its priority order afresh for every round,
    /// as a function of the seed and the round alone.
    func testPerRoundPCTDrawsAFreshOrderForEveryRound() throws {
        let operations = [StressOperation<TwoIncrementsScenario.State>("a", weight: 1, steps: [.unguarded("x") { _, _ in .next }])]
        let board = SiteBoard(workers: 4, operations: operations)
        func orders(seed: UInt64) -> [[UInt64]] {
            let shared = SoftPCT(board: board, settings: FuzzSettings(.pct), seed: seed)
            return (0..<20).map { round in
                shared.beginRound(round)
                return shared.priorityOrder
            }
        }
        let first = orders(seed: 7)
        XCTAssertEqual(first, orders(seed: 7), "the same seed makes the same orders")
        XCTAssertNotEqual(first, orders(seed: 8))
        XCTAssertGreaterThan(Set(first).count, 5, "the order changes from round to round: \(first)")
        for order in first { XCTAssertEqual(Set(order).count, 4, "a permutation: \(order)") }
    }

    // MARK: - Runs

    private func runIsolated(_ yaml: String) throws -> RunReport {
        try PlanRunner.run(yaml: yaml, file: "scenario.yaml", registry: .builtIn,
                           options: RunOptions(isolation: TestSupport.childIsolation))
    }

    /// Sequential consistency forbids store buffering's `0, 0` and Dekker's
    /// double entry: never seen, whatever the machine.
    func testSequentiallyConsistentLitmusTestsNeverShowTheirForbiddenOutcome() throws {
        let report = try runIsolated("""
            defaults: { duration: 200ms, warmup: 0 }
            experiments:
              - scenario: store-buffering
                parameters: { ordering: sequentially-consistent }
                strategies: [unsynchronized]
              - scenario: dekker
                parameters: { ordering: sequentially-consistent }
                strategies: [unsynchronized]
            """)
        XCTAssertEqual(report.trials.map(\.trial.experiment), ["store-buffering", "dekker"])
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            XCTAssertFalse(trial.outcomes?.contains { $0.outcome == "0, 0" && $0.grade != "acceptable" } ?? true)
            XCTAssertFalse(trial.outcomes?.contains { $0.grade == "forbidden" } ?? true, "\(trial.outcomes ?? [])")
            XCTAssertGreaterThan(trial.rounds ?? 0, 0)
        }
    }

    /// The correct variants of the seeds' races: no forbidden outcome under
    /// any profile (`portfolio` takes four repetitions, one of each profile
    /// it rotates), any of these strategies, many seeds (each repetition has
    /// its own).
    func testCorrectVariantsShowNoForbiddenOutcomeUnderEveryProfile() throws {
        let profiles = ["off", "light", "yield", "chaos", "pct", "portfolio"]
        let report = try runIsolated("""
            defaults: { ops: 150, warmup: 0, repetitions: 2, strategies: [pthread-mutex, serial-queue, actor] }
            experiments:
            """ + profiles.map { p in
                let repetitions = p == "portfolio" ? ", repetitions: 4" : ""
                return """

              - { name: start-cancel-\(p), scenario: operation-start-cancel, fuzz: \(p), parameters: { variant: correct }\(repetitions) }
              - { name: lazy-init-\(p), scenario: lazy-init-race, fuzz: \(p), parameters: { variant: correct }\(repetitions) }
              - { name: nested-\(p), scenario: nested-transaction-once, fuzz: \(p), parameters: { variant: correct }\(repetitions) }
            """ }.joined())
        XCTAssertEqual(report.trials.count, 5 * 3 * 3 * 2 + 3 * 3 * 4)
        XCTAssertEqual(Set(report.trials.filter { $0.trial.experiment.hasSuffix("portfolio") }.map(\.trial.fuzz.profile)),
                       [.chaos, .pct, .yield, .light], "portfolio's four turns")
        XCTAssertEqual(Set(report.trials.map(\.trial.seed)).count, report.trials.count / 3, "a seed per cell and repetition")
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            XCTAssertEqual(trial.rounds, 150, trial.trial.id)
        }
    }

    /// The buggy variants, with the plan's budget and a fixed seed: found in
    /// their first rounds in every measured seed (scripts/bench-scenarios.py).
    func testBuggyVariantsAreFoundWithTheirFirstRound() throws {
        let report = try runIsolated("""
            defaults: { duration: 2s, warmup: 0, fuzz: yield, stop_on_violation: true, seed: 3, strategies: [pthread-mutex, actor] }
            experiments:
              - { name: start-cancel, scenario: operation-start-cancel, parameters: { variant: cancel-finishes } }
              - { name: check-then-create, scenario: lazy-init-race, parameters: { variant: check-then-create } }
              - { name: publish-early, scenario: lazy-init-race, parameters: { variant: publish-before-initialize } }
            """)
        XCTAssertEqual(report.trials.count, 6, "3 experiments under 2 strategies")
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .violated, WorkloadTestSupport.describe(trial))
            let forbidden = try XCTUnwrap(trial.outcomes?.first { $0.grade == "forbidden" }, trial.trial.id)
            XCTAssertNotNil(forbidden.firstRound)
            XCTAssertTrue(trial.violations.samples.first?.message.hasPrefix("round \(forbidden.firstRound!): forbidden outcome") == true,
                          "\(trial.violations.samples)")
            XCTAssertNotNil(trial.rerunCommand)
        }
    }

    /// A round that never completes is a stall: here the transaction re-enters
    /// a non-recursive lock, and the report names each role and where it is.
    func testAStalledRoundIsADeadlockNamingEachRole() throws {
        // The deadlocking trial has a window it never reaches; the recursive
        // lock's, which runs to its end, a short one.
        let report = try runIsolated("""
            defaults: { warmup: 0, deadlock_after: 300ms }
            experiments:
              - { name: stuck, scenario: nested-transaction-once, parameters: { variant: reenter }, strategies: [pthread-mutex], duration: 30s }
              - { name: reentrant, scenario: nested-transaction-once, parameters: { variant: reenter }, strategies: [recursive-lock], duration: 500ms }
            """)
        let stuck = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(stuck.outcome, .deadlock, WorkloadTestSupport.describe(stuck))
        let stall = try XCTUnwrap(stuck.stall)
        XCTAssertEqual(stall.cycle, ["worker 0 holds resource 0 and waits for resource 0, held by itself"])
        XCTAssertEqual(stall.workers.first?.operation, "transaction")
        // The other role either waits for the lock or has done its update and
        // waits at the round's barrier, whichever came first: named by its
        // role either way.
        let other = try XCTUnwrap(stall.workers.last)
        XCTAssertEqual(other.operation, "update", "\(other)")
        XCTAssertTrue(other.phase == "acquiring" || other.description == "update: waiting at the round's barrier for the other roles", "\(other)")
        XCTAssertEqual(report.trials.last?.outcome, .passed, "re-entry is fine for a recursive lock")
    }

    // MARK: - Plans

    func testThePlanSaysScenarioAndItsThreadsAreItsRoles() throws {
        let problems = TestSupport.problems("""
            defaults: { threads: [1, 8] }
            experiments:
              - scenario: store-buffering
                threads: 4
              - workload: store-buffering
              - scenario: counter
              - scenario: store-bufering
              - workload: counter
                scenario: dekker
            """)
        XCTAssertEqual(problems.map(\.description), [
            "test.yaml:4:14: experiments[0].threads: scenario 'store-buffering' has 2 roles, so its trials have 2 workers (role i on worker i); "
                + "threads must be 2 or left out, not 4",
            "test.yaml:5:15: experiments[1].workload: 'store-buffering' is a scenario: write 'scenario: store-buffering'",
            "test.yaml:6:15: experiments[2].scenario: 'counter' is a workload: write 'workload: counter'",
            "test.yaml:7:15: experiments[3].scenario: unknown scenario 'store-bufering'; did you mean 'store-buffering'? "
                + "(available: store-buffering, message-passing, load-buffering, dekker, empty, operation-start-cancel, lazy-init-race, "
                + "nested-transaction-once; `stressbench list` describes them)",
            "test.yaml:9:15: experiments[4].scenario: an experiment runs a workload or a scenario, not both",
        ])
        let plan = try TestSupport.plan("defaults: { threads: [1, 8] }\nexperiments:\n  - scenario: dekker\n    strategies: all\n")
        XCTAssertEqual(plan.experiments[0].threads, [2], "defaults.threads do not apply to a scenario")
        XCTAssertFalse(plan.experiments[0].strategies.contains("atomic"), "no lock-free form")
        XCTAssertEqual(TrialMatrix.expand(plan).first?.scenario, true)
    }

    // MARK: - Outputs and the library

    /// The outcome histogram in the table, the JSON, the CSV, the Markdown and
    /// the JUnit file, and `rounds_per_s` in the gate.
    func testEveryOutputShowsTheOutcomes() throws {
        let dir = try TestSupport.temporaryDirectory()
        let file = { dir.appendingPathComponent($0).path }
        try """
            thresholds: ["rounds_per_s > 1000G"]
            experiments:
              - scenario: dekker
                parameters: { ordering: sequentially-consistent }
                strategies: [unsynchronized]
                ops: 2000
                warmup: 0
            """.write(toFile: file("plan.yaml"), atomically: true, encoding: .utf8)
        let r = try TestSupport.cli(["run", file("plan.yaml"), "--json", file("r.json"), "--csv", file("r.csv"),
                                     "--markdown", file("r.md"), "--junit", file("r.xml"), "-q"])
        XCTAssertEqual(r.status, 4, "no machine makes 10^12 rounds a second: \(r.stderr)")
        XCTAssertTrue(r.stdout.contains("dekker/unsynchronized/t2/r0: 2k rounds"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  outcome  count  grade"), r.stdout)
        XCTAssertTrue(r.stdout.contains("rounds_per_s > 1000G"), r.stdout)

        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: file("r.json"))))
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.rounds, 2000)
        XCTAssertEqual(trial.outcomes?.reduce(0) { $0 + $1.count }, 2000)
        XCTAssertNotNil(trial.measurement?.roundsPerSecond)
        XCTAssertEqual(trial.trial.scenario, true)

        let csv = CSV.parse(try String(contentsOfFile: file("r.csv"), encoding: .utf8))
        let row = Dictionary(uniqueKeysWithValues: zip(csv[0], csv[1]))
        XCTAssertEqual(row["rounds"], "2000")
        XCTAssertEqual(row["forbidden"], "0")
        XCTAssertEqual(row["interesting"], "0")
        XCTAssertFalse(row["rounds_per_s"]?.isEmpty ?? true)

        let markdown = try String(contentsOfFile: file("r.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("### Scenario outcomes"), markdown)
        XCTAssertTrue(markdown.contains("| outcome | count | grade | meaning |"), markdown)
        let junit = try String(contentsOfFile: file("r.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("<system-out>dekker/unsynchronized/t2/r0: 2k rounds"), junit)
    }

    /// Every output carries the forbidden and interesting counts, and they
    /// agree with the JSON's outcome table (a count stuck at 0 would fail).
    func testEveryOutputCountsForbiddenAndInterestingOutcomes() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - scenario: test-three-grades
                strategies: [unsynchronized]
                ops: 3000
                warmup: 0
            """, registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .violated, "a forbidden outcome is a violation: \(WorkloadTestSupport.describe(trial))")
        let json = try ResultCoding.decoder().decode(RunReport.self, from: ResultCoding.encoder().encode(report))
        let outcomes = try XCTUnwrap(json.trials.first?.outcomes)
        func count(_ grade: String) -> Int { outcomes.filter { $0.grade == grade }.reduce(0) { $0 + $1.count } }
        XCTAssertEqual(Set(outcomes.map(\.grade)), ["acceptable", "interesting", "forbidden"])
        XCTAssertEqual(count("acceptable") + count("interesting") + count("forbidden"), 3000)
        XCTAssertGreaterThan(count("interesting"), 0)
        XCTAssertGreaterThan(count("forbidden"), 0)

        let csv = CSV.parse(CSVReport.render(report))
        let row = Dictionary(uniqueKeysWithValues: zip(csv[0], csv[1]))
        XCTAssertEqual(row["rounds"], "3000")
        XCTAssertEqual(row["forbidden"], String(count("forbidden")))
        XCTAssertEqual(row["interesting"], String(count("interesting")))

        let markdown = MarkdownReport.render(report)
        XCTAssertTrue(markdown.contains("| `2` | \(count("forbidden")) | **forbidden** | two past a multiple of three |"), markdown)
        XCTAssertTrue(markdown.contains("| `1` | \(count("interesting")) | interesting | one past a multiple of three |"), markdown)
        let junit = JUnitReport.render(report)
        XCTAssertTrue(junit.contains("<failure"), "a forbidden outcome fails the case: \(junit)")
        XCTAssertTrue(junit.contains("forbidden: two past a multiple of three"), junit)
        XCTAssertTrue(junit.contains("interesting: one past a multiple of three"), junit)
    }

    /// A team's own scenario from the library API, in process.
    func testAScenarioOfYourOwnRunsFromTheLibrary() throws {
        let report = try PlanRunner.run(yaml: """
            defaults: { ops: 3000, warmup: 0 }
            experiments:
              - { name: whole, scenario: two-increments, strategies: [pthread-mutex, actor] }
              - { name: split, scenario: two-increments, parameters: { split: true }, strategies: [pthread-mutex], fuzz: yield }
            """, registry: registry)
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .passed, .violated])
        for trial in report.trials.prefix(2) { XCTAssertEqual(trial.outcomes?.map(\.outcome), ["2"]) }
        XCTAssertEqual(report.trials.last?.outcomes?.first { $0.grade == "forbidden" }?.outcome, "1")
    }
}
