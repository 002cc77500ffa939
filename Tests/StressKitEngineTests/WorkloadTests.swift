import StressKit
import StressKitTestSupport
import XCTest

/// The correct workloads keep every invariant under every synchronizing
/// strategy (looked up in the registry, so strategies merged later are covered)
/// at 1, 2, 4 and 8 threads, and every operation of each actually runs. (The
/// counter, which also pairs with `atomic`, is checked the same way in
/// `StrategyCatalogTests`.)
final class WorkloadTests: XCTestCase {
    /// One correct workload configuration. Small key spaces, pools and buffers,
    /// so that workers meet on the same state often.
    private struct Case {
        let workload: String
        let parameters: String
        /// Operations that must have run at 4 threads (each has a weight ≥ 5%).
        let operations: [String]
    }

    private static let opsPerThread = 2_000
    private static let threadCounts = [1, 2, 4, 8]

    private func assertCorrect(_ c: Case, name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let strategies = WorkloadTestSupport.synchronizingStrategies.map(\.name)
        let report = try TestSupport.runInProcess("""
            defaults: { threads: \(Self.threadCounts), ops: \(Self.opsPerThread), warmup: 0s, seed: 21 }
            experiments:
              - name: \(name)
                workload: \(c.workload)
                parameters: \(c.parameters)
                strategies: [\(strategies.joined(separator: ", "))]
            """)
        XCTAssertEqual(report.trials.count, strategies.count * Self.threadCounts.count, file: file, line: line)
        for t in report.trials {
            XCTAssertEqual(t.outcome, .passed, WorkloadTestSupport.describe(t), file: file, line: line)
            let m = try XCTUnwrap(t.measurement, t.trial.id, file: file, line: line)
            XCTAssertEqual(m.totalOps, Self.opsPerThread * t.trial.threads, t.trial.id, file: file, line: line)
            if t.trial.threads == 4 {
                for op in c.operations {
                    XCTAssertGreaterThan(m.operations[op] ?? 0, 0, "\(t.trial.id): operation \(op) never ran", file: file, line: line)
                }
            }
        }
    }

    func testBankIsCorrectUnderEverySynchronizingStrategy() throws {
        try assertCorrect(Case(workload: "bank",
                               parameters: "{ accounts: 4, initial_balance: 100, audit_ratio: 0.1, close_ratio: 0.05 }",
                               operations: ["transfer", "deposit", "withdraw", "close", "reopen", "audit"]),
                          name: "bank")
    }

    func testCacheWithZipfKeysIsCorrectUnderEverySynchronizingStrategy() throws {
        try assertCorrect(Case(workload: "cache", parameters: "{ keys: 64, read_ratio: 0.7, distribution: zipf, zipf_exponent: 1.2 }",
                               operations: ["get", "put"]),
                          name: "cache-zipf")
    }

    func testCacheWithUniformKeysIsCorrectUnderEverySynchronizingStrategy() throws {
        try assertCorrect(Case(workload: "cache", parameters: "{ keys: 8, read_ratio: 0.5, distribution: uniform }",
                               operations: ["get", "put"]),
                          name: "cache-uniform")
    }

    func testLifecycleIsCorrectUnderEverySynchronizingStrategy() throws {
        try assertCorrect(Case(workload: "lifecycle", parameters: "{ slots: 4, cancel_ratio: 0.2 }",
                               operations: ["start", "cancel", "run", "recycle"]),
                          name: "lifecycle")
    }

    func testQueueIsCorrectUnderEverySynchronizingStrategy() throws {
        try assertCorrect(Case(workload: "queue", parameters: "{ capacity: 4, produce_ratio: 0.5 }",
                               operations: ["put", "take"]),
                          name: "queue")
    }

    func testLazyInitIsCorrectUnderEverySynchronizingStrategy() throws {
        try assertCorrect(Case(workload: "lazy-init", parameters: "{ reset_ratio: 0.05 }",
                               operations: ["get", "reset"]),
                          name: "lazy-init")
    }

    /// The workloads' own figures say the runs exercised what they model.
    func testWorkloadMetricsShowTheStateWasExercised() throws {
        let report = try TestSupport.runInProcess("""
            defaults: { threads: 4, ops: 3000, warmup: 0s, strategies: [pthread-mutex] }
            experiments:
              - { workload: queue, parameters: { capacity: 3 } }
              - { workload: lifecycle, parameters: { slots: 2 } }
              - { workload: lazy-init, parameters: { reset_ratio: 0.1 } }
              - { workload: bank, parameters: { accounts: 8, close_ratio: 0.2, audit_ratio: 0 } }
            """)
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .passed, .passed, .passed])
        let metrics = report.trials.map { $0.measurement?.workloadMetrics ?? [:] }
        XCTAssertGreaterThan(metrics[0]["high_water"] ?? 0, 0)
        XCTAssertLessThanOrEqual(metrics[0]["high_water"] ?? .infinity, 3, "the buffer never held more than its capacity")
        XCTAssertGreaterThan(metrics[1]["operations_completed"] ?? 0, 100, "slots were recycled")
        XCTAssertGreaterThan(metrics[2]["generations"] ?? 0, 100, "the instance was reset")
        XCTAssertGreaterThan(metrics[2]["instances_created"] ?? 0, 100, "and created again")
        XCTAssertNotNil(metrics[3]["closed_accounts"])
    }

    // MARK: - Parameters

    func testBankRejectsRatiosThatLeaveNothingForTransfers() {
        let problems = TestSupport.problems("""
            experiments:
              - workload: bank
                parameters: { deposit_ratio: 0.5, withdraw_ratio: 0.5, close_ratio: 0.1 }
            """)
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.first?.description.contains("experiments[0].parameters: audit_ratio + deposit_ratio") == true,
                      "\(problems)")
    }

    func testEveryVariantOfEveryWorkloadLoads() throws {
        for entry in StressRegistry.builtIn.workloads {
            guard let spec = entry.descriptor.parameters.first(where: { $0.name == "variant" }),
                  case .choice(let variants) = spec.kind else { continue }
            for variant in variants {
                XCTAssertNoThrow(try TestSupport.plan("""
                    experiments: [ { workload: \(entry.descriptor.name), parameters: { variant: \(variant) } } ]
                    """), "\(entry.descriptor.name) variant \(variant)")
            }
        }
    }

    func testEveryParameterIsDocumented() {
        for entry in StressRegistry.builtIn.workloads where !entry.descriptor.hidden {
            XCTAssertFalse(entry.descriptor.summary.isEmpty, entry.descriptor.name)
            for p in entry.descriptor.parameters {
                XCTAssertGreaterThan(p.summary.count, 10, "\(entry.descriptor.name).\(p.name) needs a description")
            }
        }
    }

    // MARK: - Key distribution

    func testZipfSamplesFollowTheirTable() {
        let zipf = KeyDistribution.zipf(count: 100, exponent: 1)
        let total = (0..<100).reduce(0.0) { $0 + zipf.probability(of: $1) }
        XCTAssertEqual(total, 1, accuracy: 1e-9)
        XCTAssertEqual(zipf.probability(of: 0) / zipf.probability(of: 1), 2, accuracy: 1e-6, "key k ∝ 1/(k+1)")
        XCTAssertEqual(zipf.probability(of: 0) / zipf.probability(of: 9), 10, accuracy: 1e-6)
        // A fixed seed: the counts are the same on every run.
        var random = SplitMix64(seed: 7)
        var counts = [Int](repeating: 0, count: 100)
        let draws = 200_000
        for _ in 0..<draws { counts[zipf.sample(&random)] += 1 }
        for k in [0, 1, 9, 99] {
            XCTAssertEqual(Double(counts[k]) / Double(draws), zipf.probability(of: k), accuracy: 0.005, "key \(k)")
        }
    }

    func testUniformSamplesCoverTheKeySpace() {
        let uniform = KeyDistribution.uniform(count: 10)
        var random = SplitMix64(seed: 3)
        var counts = [Int](repeating: 0, count: 10)
        for _ in 0..<100_000 { counts[uniform.sample(&random)] += 1 }
        for c in counts { XCTAssertEqual(Double(c) / 100_000, 0.1, accuracy: 0.01) }
        XCTAssertEqual(uniform.probability(of: 3), 0.1)
    }

    func testZipfWithExponentZeroIsUniformAndOneKeyAlwaysDrawsIt() {
        let flat = KeyDistribution.zipf(count: 4, exponent: 0)
        for k in 0..<4 { XCTAssertEqual(flat.probability(of: k), 0.25, accuracy: 1e-12) }
        let single = KeyDistribution.zipf(count: 1, exponent: 2)
        var random = SplitMix64(seed: 1)
        for _ in 0..<100 { XCTAssertEqual(single.sample(&random), 0) }
    }
}
