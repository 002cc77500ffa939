import StressKit
import StressKitTestSupport
import XCTest

final class TrialMatrixTests: XCTestCase {
    func testExpansionOrderIdsAndCounts() throws {
        let plan = try TestSupport.plan("""
            defaults: { seed: 9, duration: 200ms, warmup: 50ms }
            experiments:
              - workload: counter
                strategies: [mutex, actor]
                threads: [1, 4]
                repetitions: 2
              - name: b
                workload: bank
                strategies: [pthread-mutex]
                threads: 2
                ops: 1000
            """)
        let trials = TrialMatrix.expand(plan)
        XCTAssertEqual(trials.count, 2 * 2 * 2 + 1)
        XCTAssertEqual(trials.map(\.id), [
            "counter/mutex/t1/r0", "counter/mutex/t1/r1", "counter/mutex/t4/r0", "counter/mutex/t4/r1",
            "counter/actor/t1/r0", "counter/actor/t1/r1", "counter/actor/t4/r0", "counter/actor/t4/r1",
            "b/pthread-mutex/t2/r0",
        ])
        XCTAssertEqual(trials.map(\.index), Array(0..<9))
        XCTAssertEqual(trials[0].durationNanoseconds, 200_000_000)
        XCTAssertNil(trials[0].opsPerThread)
        XCTAssertEqual(trials[8].opsPerThread, 1000)
        XCTAssertNil(trials[8].durationNanoseconds)
        XCTAssertEqual(trials[0].timeoutNanoseconds, 50_000_000 + 2 * 200_000_000 + 10_000_000_000, "automatic timeout")
        XCTAssertEqual(trials[8].warmupNanoseconds, 50_000_000)
    }

    /// `order: interleaved` runs every cell's first repetition, then every
    /// cell's second, and so on: the same trials, with the same ids and seeds,
    /// indexed by the order they run in; a cell with fewer repetitions drops
    /// out of the later rounds.
    func testInterleavedOrderRunsRepetitionFirst() throws {
        // Two cells of two repetitions and one of three.
        let text = """
            experiments:
              - { workload: counter, strategies: [mutex, actor], threads: 1, repetitions: 2 }
              - { name: b, workload: bank, strategies: [pthread-mutex], threads: 2, repetitions: 3 }
            """
        let nested = TrialMatrix.expand(try TestSupport.plan(text))
        let plan = try TestSupport.plan("order: interleaved\n" + text)
        XCTAssertEqual(plan.order, .interleaved)
        let trials = TrialMatrix.expand(plan)
        XCTAssertEqual(trials.map(\.id), [
            "counter/mutex/t1/r0", "counter/actor/t1/r0", "b/pthread-mutex/t2/r0",
            "counter/mutex/t1/r1", "counter/actor/t1/r1", "b/pthread-mutex/t2/r1",
            "b/pthread-mutex/t2/r2",
        ])
        XCTAssertEqual(trials.map(\.index), Array(0..<7))
        let byId = Dictionary(uniqueKeysWithValues: nested.map { ($0.id, $0) })
        for t in trials {
            let same = try XCTUnwrap(byId[t.id])
            XCTAssertEqual([t.seed, UInt64(t.repetition), UInt64(t.threads)], [same.seed, UInt64(same.repetition), UInt64(same.threads)], t.id)
        }
        XCTAssertEqual(try TestSupport.plan("order: matrix\n" + text).order, .matrix)
        XCTAssertEqual(try TestSupport.plan(text).order, .matrix, "the default")
    }

    func testSeedsDependOnCellNotStrategyAndAreStable() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex, actor]
                threads: [2, 4]
                repetitions: 2
                seed: 5
            """)
        let trials = TrialMatrix.expand(plan)
        let byID = Dictionary(uniqueKeysWithValues: trials.map { ($0.id, $0.seed) })
        XCTAssertEqual(byID["counter/mutex/t2/r0"], byID["counter/actor/t2/r0"], "strategies in a cell share streams")
        XCTAssertNotEqual(byID["counter/mutex/t2/r0"], byID["counter/mutex/t2/r1"])
        XCTAssertNotEqual(byID["counter/mutex/t2/r0"], byID["counter/mutex/t4/r0"])
        XCTAssertEqual(TrialMatrix.expand(plan).map(\.seed), trials.map(\.seed), "deterministic")
        XCTAssertTrue(trials.allSatisfy { $0.seed < (1 << 53) }, "JSON-safe")
        XCTAssertEqual(byID["counter/mutex/t2/r0"], TrialMatrix.seed(base: 5, experiment: "counter", threads: 2, repetition: 0))
    }

    func testOnlyAndSeedOverride() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex, actor]
                threads: [1, 2]
              - workload: bank
                strategies: [mutex]
                threads: [1]
            """)
        func ids(_ only: [String]) -> [String] {
            PlanRunner(registry: .builtIn, options: RunOptions(only: only)).selectedTrials(of: plan).map(\.id)
        }
        XCTAssertEqual(ids(["bank"]), ["bank/mutex/t1/r0"])
        XCTAssertEqual(ids(["counter/actor"]), ["counter/actor/t1/r0", "counter/actor/t2/r0"])
        XCTAssertEqual(ids(["counter/mutex/t2/r0", "bank"]), ["counter/mutex/t2/r0", "bank/mutex/t1/r0"])
        XCTAssertEqual(ids(["count"]), [], "prefixes match at '/' boundaries only")
        let rerun = PlanRunner(registry: .builtIn, options: RunOptions(only: ["bank"], seed: 77, timeout: .seconds(3)))
        XCTAssertEqual(rerun.selectedTrials(of: plan).map(\.seed), [77])
        XCTAssertEqual(rerun.selectedTrials(of: plan).map(\.timeoutNanoseconds), [3_000_000_000])
    }

    func testAutomaticTimeoutSaturatesForExperimentsBuiltInCode() {
        // The plan loader bounds durations; an Experiment made in code is not,
        // and its automatic timeout must not overflow (it used to trap).
        let e = Experiment(name: "e", workload: "counter", parameters: WorkloadParameters(defaultsOf: [], overrides: [:]),
                           strategies: ["mutex"], threads: [1], stop: .duration(nanoseconds: 9_000_000_000_000_000_000),
                           repetitions: 1, seed: 1, warmupNs: 9_000_000_000_000_000_000, timeoutNs: nil)
        let plan = Plan(name: "p", file: "p.yaml", experiments: [e])
        let trial = TrialMatrix.expand(plan)[0]
        XCTAssertEqual(trial.timeoutNanoseconds, Int.max)
        XCTAssertEqual(trial.warmupNanoseconds, 9_000_000_000_000_000_000)
    }
}
