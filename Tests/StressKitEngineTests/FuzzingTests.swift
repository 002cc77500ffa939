@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Thread fuzzing: reproducible decisions, plan syntax, and never a false alarm.
final class FuzzingTests: XCTestCase {
    private func decisions(_ settings: FuzzSettings, seed: UInt64, thread: Int, count: Int) -> [Perturbation] {
        var f = Fuzzer(settings: settings, seed: seed, thread: thread, threads: 4, coordinator: nil, probe: .detached)
        return (0..<count).map { _ in f.decide() }
    }

    func testDecisionsAreAPureFunctionOfSeedThreadAndIndex() {
        var s = FuzzSettings(.chaos)
        s.starveProbability = 0  // the starvation cap depends on elapsed time
        let a = decisions(s, seed: 42, thread: 1, count: 20_000)
        XCTAssertEqual(a, decisions(s, seed: 42, thread: 1, count: 20_000), "same seed, same decisions")
        XCTAssertNotEqual(a, decisions(s, seed: 42, thread: 2, count: 20_000), "each worker has its own stream")
        XCTAssertNotEqual(a, decisions(s, seed: 43, thread: 1, count: 20_000))
        // The rates match the documented probabilities (20,000 draws: within 20%).
        let yields = a.filter { $0 == .yield }.count, spins = a.filter { if case .spin = $0 { true } else { false } }.count
        XCTAssertEqual(Double(spins) / 20_000, 0.05, accuracy: 0.01)
        XCTAssertEqual(Double(yields) / 20_000, 0.05 * (1 - 0.05) * (1 - 0.002), accuracy: 0.01)
        for case .spin(let ns) in a { XCTAssertTrue((50...50_000).contains(ns), "\(ns)") }
        XCTAssertEqual(decisions(FuzzSettings(.off), seed: 1, thread: 0, count: 1000), Array(repeating: .none, count: 1000))
        XCTAssertFalse(FuzzSettings(.off).isActive)
    }

    func testPlanSyntaxAndPortfolioRotation() throws {
        let plan = try TestSupport.plan("""
            defaults: { fuzz: chaos }
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
                repetitions: 5
                fuzz: portfolio
              - workload: bank
                strategies: [mutex]
                threads: 2
                fuzz: { profile: yield, yield: 0.5, spin: 0.1, spin_max: 10us, pct_depth: 2 }
              - name: inherit
                workload: bank
                strategies: [mutex]
                threads: 2
            """)
        let trials = TrialMatrix.expand(plan)
        XCTAssertEqual(trials.prefix(5).map(\.fuzz.profile), [.chaos, .pct, .yield, .light, .chaos])
        let tuned = trials[5].fuzz
        XCTAssertEqual(tuned.profile, .yield)
        XCTAssertEqual(tuned.yieldProbability, 0.5)
        XCTAssertEqual(tuned.spinProbability, 0.1)
        XCTAssertEqual(tuned.spinMaxNanoseconds, 10_000)
        XCTAssertEqual(tuned.pctDepth, 2)
        XCTAssertEqual(trials[6].fuzz, FuzzSettings(.chaos), "from defaults")

        let problems = TestSupport.problems("""
            experiments:
              - workload: counter
                fuzz: chaoss
              - workload: bank
                fuzz: { yeild: 0.1, spin: 2, sleep_min: 5ms, sleep_max: 1ms }
            """)
        XCTAssertEqual(problems.map { "\($0.path): \($0.message)" }, [
            "experiments[0].fuzz: unknown fuzz profile 'chaoss'; did you mean 'chaos'? (available: off, light, yield, chaos, pct, portfolio)",
            "experiments[1].fuzz: sleep_min is longer than sleep_max",
            "experiments[1].fuzz.yeild: unknown key 'yeild'; did you mean 'yield'? (allowed here: profile, yield, spin, spin_min, spin_max, sleep, sleep_min, sleep_max, starve, starve_min, starve_max, starve_share, pct_depth, pct_wait_cap, stagger, pct_scope, spurious)",
            "experiments[1].fuzz.spin: 2.0 is out of range: expected a number from 0.0 to 1.0",
        ])
    }

    /// Correct workloads under every synchronizing strategy, every perturbing
    /// profile (a portfolio of 8 repetitions runs chaos, pct, yield and light
    /// twice each, every repetition with its own seed) and two seeds of plain
    /// yield on top: no violation, ever. Strategies and workloads come from the
    /// registry, so ones added later are covered.
    func testFuzzingNeverMakesACorrectStrategyFail() throws {
        let strategies = StressRegistry.builtIn.defaultStrategies.map(\.descriptor)
            .filter { $0.synchronizes && !$0.lockFree }.map(\.name).joined(separator: ", ")
        let workloads = StressRegistry.builtIn.workloads.map(\.descriptor).filter { !$0.hidden }.map(\.name)
        XCTAssertEqual(Set(workloads), ["counter", "bank", "cache", "lifecycle", "queue", "lazy-init"])
        for (profile, repetitions) in [("portfolio", 8), ("yield", 2)] {
            let experiments = workloads.map { "  - { workload: \($0), strategies: [\(strategies)] }" }.joined(separator: "\n")
            let report = try TestSupport.runInProcess("""
                defaults: { threads: [4], ops: 120, warmup: 0s, repetitions: \(repetitions), seed: 99, fuzz: \(profile) }
                experiments:
                \(experiments)
                """)
            XCTAssertGreaterThan(report.trials.count, 100)
            for t in report.trials {
                XCTAssertEqual(t.outcome, .passed, "\(t.trial.fuzz.profile) \(t.trial.id) seed \(t.trial.seed): \(t.violations.samples.map(\.summaryLine))")
            }
        }
    }

    /// `frame.fuzzPoint()` in a workload's step is a fuzz point like the
    /// built-in ones: it takes the next decision of the worker's stream (and
    /// nothing at all when fuzzing is off); a nested actor hop takes two.
    func testAWorkloadsFuzzPointTakesTheNextDecision() {
        var frame = OpFrame(thread: 0, seed: 1)
        frame.fuzzPoint()
        XCTAssertEqual(frame.fuzz.index, 0, "off: no decision is even drawn")
        var settings = FuzzSettings(.off)
        settings.spinProbability = 0.5
        settings.spinMaxNanoseconds = 100
        frame.fuzz = Fuzzer(settings: settings, seed: 7, thread: 0, threads: 1, coordinator: nil, probe: .detached)
        for _ in 0..<10 { frame.fuzzPoint() }
        XCTAssertEqual(frame.fuzz.index, 10)
        let hops = frame.nestedHops()
        XCTAssertEqual(frame.fuzz.index, 12, "the points inside the outer actor and after the inner call")
        let stream = decisions(settings, seed: 7, thread: 0, count: 12)
        XCTAssertEqual([hops.outerEntry, hops.resumed], Array(stream[10...]), "decided as those points would have been")
    }

    func testRecordsCarryTheFuzzSettingsAndTheRerunCommand() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                parameters: { variant: split-rmw }
                strategies: [mutex]
                threads: 2
                duration: 200ms
                fuzz: yield
            """)
        let t = report.trials[0]
        XCTAssertEqual(t.trial.fuzz.profile, .yield)
        XCTAssertEqual(t.outcome, .violated, "a split read-modify-write under yield fuzzing loses updates")
        XCTAssertEqual(t.rerunCommand, "stressbench run test.yaml --only counter/mutex/t2/r0 --seed \(t.trial.seed)")
        let csv = CSVReport.render(report)
        XCTAssertTrue(csv.contains(",\(t.trial.seed),yield,violated,"), csv)
    }
}
