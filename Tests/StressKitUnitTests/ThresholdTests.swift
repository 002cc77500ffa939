import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// Threshold expressions: parsing, every error message, plan integration, and
/// evaluation per cell (including "no samples fails").
final class ThresholdTests: XCTestCase {
    // MARK: - Parsing

    func testParsesEveryFormOfBound() throws {
        let cases: [(String, GateMetric, Threshold.Comparison, Threshold.Bound)] = [
            ("p99 < 50us", .p99, .less, .value(50_000)),
            ("p99<50us", .p99, .less, .value(50_000)),
            ("p99.9 <= 2ms", .p999, .lessOrEqual, .value(2_000_000)),
            ("p999 <= 2 ms", .p999, .lessOrEqual, .value(2_000_000)),
            ("p99.99 < 1.5s", .p9999, .less, .value(1_500_000_000)),
            ("max < 800ns", .max, .less, .value(800)),
            ("mean < 1µs", .mean, .less, .value(1_000)),
            ("ops_per_s > 2M", .opsPerSecond, .greater, .value(2_000_000)),
            ("ops_per_s > 2.5M", .opsPerSecond, .greater, .value(2_500_000)),
            ("ops_per_s >= 150k", .opsPerSecond, .greaterOrEqual, .value(150_000)),
            ("ops_per_s > 1_000_000", .opsPerSecond, .greater, .value(1_000_000)),
            ("violations == 0", .violations, .equal, .value(0)),
            ("failures == 0", .failures, .equal, .value(0)),
            ("ops_per_s >= 0.9 * baseline", .opsPerSecond, .greaterOrEqual, .baseline(factor: 0.9)),
            ("ops_per_s >= 90% * baseline", .opsPerSecond, .greaterOrEqual, .baseline(factor: 0.9)),
            ("p99 <= baseline * 1.1", .p99, .lessOrEqual, .baseline(factor: 1.1)),
            ("p50 <= baseline", .p50, .lessOrEqual, .baseline(factor: 1)),
        ]
        for (text, metric, comparison, bound) in cases {
            let t = try ThresholdParser.parse(text)
            XCTAssertEqual(t.metric, metric, text)
            XCTAssertEqual(t.comparison, comparison, text)
            XCTAssertEqual(t.bound, bound, text)
            XCTAssertEqual(t.expression, text, text)
        }
    }

    func testEveryErrorSaysWhatWasExpected() {
        let cases: [(String, String, Int)] = [
            ("", "expected a threshold such as 'p99 < 50us' or 'ops_per_s >= 0.9 * baseline', found nothing", 1),
            ("p98 < 5us", "unknown metric 'p98'; did you mean 'p90'? (expected one of p50, p90, p99, p99.9, p99.99, min, max, mean, ops_per_s, rounds_per_s, violations, failures)", 1),
            ("< 5us", "expected a metric first (one of p50, p90, p99, p99.9, p99.99, min, max, mean, ops_per_s, rounds_per_s, violations, failures), found '<'", 1),
            ("p99", "expected a comparison (<, <=, >, >=, ==) after 'p99', found the end", 4),
            ("p99 50us", "expected a comparison (<, <=, >, >=, ==) after 'p99', found '50us'", 5),
            ("p99 = 50us", "'=' is not a comparison; write '==' for equality", 5),
            ("p99 !=50us", "expected a comparison (<, <=, >, >=, ==) after 'p99', found '!='", 5),
            ("p99 <", "expected a value after '<' (a time such as 50us, or 1.1 * baseline), found the end", 6),
            ("p99 < 50", "'50' needs a time unit for p99: write 50ns, 50us, 50ms or 50s", 7),
            ("p99 < fast", "expected a time such as 50us, 2ms or 800ns for p99, found 'fast'", 7),
            ("p99 < <", "expected a value (a time such as 50us, or 1.1 * baseline), found '<'", 7),
            ("ops_per_s > 2ms", "'2ms' is a time, but ops_per_s is a rate in operations per second: write e.g. 2M, 150k or 2000000", 13),
            ("ops_per_s > lots", "expected a rate such as 2M, 150k or 2000000 for ops_per_s, found 'lots'", 13),
            ("violations == 0.5", "expected a whole number for violations, found '0.5'", 15),
            ("violations <= baseline", "'violations' cannot be bounded by the baseline; baseline bounds are for latencies and ops_per_s (write e.g. 'violations == 0')", 15),
            ("ops_per_s >= 0.9 * base", "expected 'baseline' after '0.9 *', found 'base'; only a baseline can be scaled", 20),
            ("ops_per_s >= 0.9 *", "expected 'baseline' after '0.9 *', found the end", 19),
            ("ops_per_s >= -1 * baseline", "expected a value (a rate such as 2M, or 0.9 * baseline), found '-'", 14),
            ("ops_per_s >= 0 * baseline", "expected a positive factor for the baseline (such as 0.9 or 90%), found '0'", 14),
            ("ops_per_s >= baseline *", "expected a factor after 'baseline *' (such as 0.9 or 90%), found the end", 24),
            ("ops_per_s >= 0.9 baseline", "expected '*' between the factor and 'baseline' (write '0.9 * baseline')", 18),
            ("p99 < 50us and p90 < 5us", "unexpected 'and' after the bound; write one comparison per threshold", 12),
        ]
        for (text, message, position) in cases {
            XCTAssertThrowsError(try ThresholdParser.parse(text), text) { error in
                let e = error as? ThresholdSyntaxError
                XCTAssertEqual(e?.message, message, text)
                XCTAssertEqual(e?.position, position, text)
            }
        }
    }

    // MARK: - Plans

    func testPlanThresholdsAndGateSettingsLoad() throws {
        let plan = try TestSupport.plan("""
            thresholds: ["p99 < 50us", "ops_per_s > 1k"]
            gate: { tolerance: 5%, confidence: 0.9, metric: p99, min_samples: 7 }
            experiments:
              - workload: counter
                strategies: [mutex]
                thresholds: "p99 < 1ms"
              - name: other
                workload: counter
                strategies: [mutex]
            """)
        XCTAssertEqual(plan.gate.comparison, ComparisonSettings(metric: .p99, tolerance: 0.05, confidence: 0.9, minimumSamples: 7))
        XCTAssertEqual(plan.gate.thresholds(forExperiment: "counter").map(\.expression), ["ops_per_s > 1k", "p99 < 1ms"],
                       "an experiment's threshold replaces the plan's on the same metric")
        XCTAssertEqual(plan.gate.thresholds(forExperiment: "other").map(\.expression), ["p99 < 50us", "ops_per_s > 1k"])
    }

    /// `defaults` takes every experiment key, thresholds included: they are
    /// the plan-wide list. Giving it twice is an error.
    func testDefaultsMayHoldThePlanWideThresholds() throws {
        let plan = try TestSupport.plan("""
            defaults:
              thresholds: ["p99 < 50us"]
            experiments:
              - workload: counter
                strategies: [mutex]
                thresholds: ["p99 < 1ms"]
              - name: other
                workload: counter
                strategies: [mutex]
            """)
        XCTAssertEqual(plan.gate.thresholds(forExperiment: "other").map(\.expression), ["p99 < 50us"])
        XCTAssertEqual(plan.gate.thresholds(forExperiment: "counter").map(\.expression), ["p99 < 1ms"])
        let twice = TestSupport.problems("""
            thresholds: ["ops_per_s > 1k"]
            defaults: { thresholds: ["p99 < 50us"] }
            experiments:
              - workload: counter
            """)
        XCTAssertEqual(twice.map(\.description), [
            "test.yaml:1:13: thresholds: plan-wide thresholds are given twice, here and in 'defaults.thresholds'; keep one list",
        ])
    }

    func testDefaultPlanHasNoExtraThresholds() throws {
        let plan = try TestSupport.plan("experiments:\n  - workload: counter\n    strategies: [mutex]\n")
        XCTAssertTrue(plan.gate.thresholds(forExperiment: "counter").isEmpty)
        XCTAssertEqual(plan.gate.comparison, ComparisonSettings())
        XCTAssertEqual(plan.gate.comparison.tolerance, 0.10)
        XCTAssertEqual(plan.gate.comparison.minimumSamples, 5)
        XCTAssertEqual(plan.gate.comparison.metric, .p50)
    }

    func testBadThresholdsArePlanErrorsWithFileKeyPathAndLine() {
        let problems = TestSupport.problems("""
            thresholds:
              - p99 < 50us
              - p99 < 50
            gate: { tolerance: 200%, metric: violations, confidence: sure }
            experiments:
              - workload: counter
                strategies: [mutex]
                thresholds: ["ops_per_s > 2ms", [1]]
            """)
        let text = problems.map(\.description)
        XCTAssertEqual(text, [
            "test.yaml:3:5: thresholds[1]: 'p99 < 50' is not a threshold: '50' needs a time unit for p99: write 50ns, 50us, 50ms or 50s (at character 7)",
            "test.yaml:4:20: gate.tolerance: 200% is out of range: expected a tolerance such as 10% or 0.1 from 0% to 99%",
            "test.yaml:4:34: gate.metric: 'violations' cannot be compared with a baseline (expected one of p50, p90, p99, p99.9, p99.99, min, max, mean, ops_per_s, rounds_per_s)",
            "test.yaml:4:58: gate.confidence: expected a confidence such as 95% or 0.95, found 'sure'",
            "test.yaml:8:18: experiments[0].thresholds[0]: 'ops_per_s > 2ms' is not a threshold: '2ms' is a time, but ops_per_s is a rate in operations per second: write e.g. 2M, 150k or 2000000 (at character 13)",
            "test.yaml:8:37: experiments[0].thresholds[1]: expected a threshold such as \"p99 < 50us\" (quote it), found a list",
        ], text.joined(separator: "\n"))
    }

    // MARK: - Evaluation

    func testEvaluationPerCellMergesHistogramsAndTakesTheMedianThroughput() throws {
        let trials = Synthetic.cell(throughputs: [100, 300, 200], latencyNs: [1_000, 1_000, 100_000])
        let cell = try XCTUnwrap(Cell.group(trials).first)
        XCTAssertEqual(cell.value(.opsPerSecond), 200, "throughput is the median over repetitions")
        // 2 of 3 histograms hold 1µs, one 100µs: the merged p50 is 1µs, the max 100µs.
        XCTAssertEqual(try XCTUnwrap(cell.value(.p50)), 1_000, accuracy: 1)
        XCTAssertEqual(try XCTUnwrap(cell.value(.max)), 100_000, accuracy: 100)
        XCTAssertEqual(cell.value(.violations), 0)

        let pass = ThresholdEvaluator.check(try ThresholdParser.parse("ops_per_s >= 200"), cell: cell)
        XCTAssertEqual(pass.status, .passed, pass.message)
        let fail = ThresholdEvaluator.check(try ThresholdParser.parse("max < 50us"), cell: cell)
        XCTAssertEqual(fail.status, .failed)
        XCTAssertTrue(fail.message.hasPrefix("max < 50us: max = 100µs, limit < 50µs: failed"), fail.message)
    }

    func testAMetricWithNoSamplesFails() throws {
        var trials = Synthetic.cell(throughputs: [100, 100], latencyNs: [1_000, 1_000])
        for i in trials.indices {
            trials[i].measurement = nil
            trials[i].outcome = .crashed
        }
        let cell = try XCTUnwrap(Cell.group(trials).first)
        for text in ["p99 < 1s", "ops_per_s > 0"] {
            let check = ThresholdEvaluator.check(try ThresholdParser.parse(text), cell: cell)
            XCTAssertEqual(check.status, .failed, text)
            XCTAssertNil(check.observed)
            XCTAssertTrue(check.message.contains("no \(check.threshold.metric.rawValue) samples"), check.message)
        }
        XCTAssertEqual(cell.value(.failures), 2)
    }

    func testBaselineBoundsUseTheBaselineCell() throws {
        let base = Synthetic.cell(throughputs: [1000, 1000, 1000], latencyNs: [1_000, 1_000, 1_000])
        let new = Synthetic.cell(throughputs: [850, 850, 850], latencyNs: [1_000, 1_000, 1_000])
        let policy = GatePolicy(planThresholds: [try ThresholdParser.parse("ops_per_s >= 0.9 * baseline")])
        let checks = ThresholdEvaluator.evaluate(new, policy: policy, baseline: base)
        XCTAssertEqual(checks.map(\.status), [.failed])
        XCTAssertEqual(checks.first?.limit, 900)
        let noBaseline = ThresholdEvaluator.evaluate(new, policy: policy)
        XCTAssertEqual(noBaseline.map(\.status), [.notEvaluated])
        let otherCell = ThresholdEvaluator.evaluate(new, policy: policy, baseline: Synthetic.cell(throughputs: [1], latencyNs: [1], strategy: "nslock"))
        XCTAssertEqual(otherCell.map(\.status), [.notEvaluated])
        XCTAssertTrue(otherCell[0].message.contains("the baseline has no cell e/mutex/t2"), otherCell[0].message)
    }

    /// A baseline bound judges the ratio's interval, not two single medians:
    /// one build's noisy repetitions pass, a real 30% drop fails.
    func testBaselineBoundsFailOnlyWhenTheWholeIntervalFails() throws {
        let policy = GatePolicy(planThresholds: [try ThresholdParser.parse("ops_per_s >= 0.9 * baseline")])
        let base = Synthetic.cell(throughputs: [1000, 800, 1200, 950, 1050], latencyNs: [1_000, 1_000, 1_000, 1_000, 1_000])
        let noisy = Synthetic.cell(throughputs: [850, 1150, 780, 1000, 870], latencyNs: [1_000, 1_000, 1_000, 1_000, 1_000])
        let same = ThresholdEvaluator.evaluate(noisy, policy: policy, baseline: base)
        XCTAssertEqual(same.map(\.status), [.passed], same.first?.message ?? "")
        XCTAssertEqual(try XCTUnwrap(same.first?.ratio), 0.87, accuracy: 1e-9, "two single medians would have failed 0.87 < 0.9")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(same.first?.ratioHigh), 0.9)
        XCTAssertTrue(same[0].message.hasPrefix("ops_per_s >= 0.9 * baseline: ops_per_s = 870 ops/s, baseline 1k ops/s (medians of 5 and 5 repetitions): ratio 0.870 ["), same[0].message)

        let dropped = Synthetic.cell(throughputs: [700, 560, 840, 665, 735], latencyNs: [1_000, 1_000, 1_000, 1_000, 1_000])
        let slow = ThresholdEvaluator.evaluate(dropped, policy: policy, baseline: base)
        XCTAssertEqual(slow.map(\.status), [.failed], slow.first?.message ?? "")
        XCTAssertLessThan(try XCTUnwrap(slow.first?.ratioHigh), 0.9)
        XCTAssertTrue(slow[0].message.hasSuffix("): failed: the whole interval is beyond 0.9"), slow[0].message)

        // A latency bound on a quantized p50: one clock step up is no change.
        let p50 = GatePolicy(planThresholds: [try ThresholdParser.parse("p50 <= 1.1 * baseline")])
        let quantized = ThresholdEvaluator.evaluate(Synthetic.latencyCell([40, 40, 40, 40, 40], clockStepNs: 10), policy: p50,
                                                    baseline: Synthetic.latencyCell([30, 30, 30, 30, 30], clockStepNs: 10))
        XCTAssertEqual(quantized.map(\.status), [.passed], quantized.first?.message ?? "")
        XCTAssertTrue(quantized[0].message.contains("within p50's resolution (10ns)"), quantized[0].message)
    }

    func testFailedThresholdMakesExitCodeFourButCorrectnessWins() throws {
        var report = RunReport(plan: "p", planFile: "p.yaml", startedAt: Date(), finishedAt: Date(),
                               trials: Synthetic.cell(throughputs: [10, 10, 10], latencyNs: [1, 1, 1]))
        let policy = GatePolicy(planThresholds: [try ThresholdParser.parse("ops_per_s > 1M")])
        report.gate = GateReport.evaluate(report.trials, policy: policy)
        XCTAssertEqual(report.exitCode, .performanceRegression)
        report.trials[0].outcome = .violated
        XCTAssertEqual(report.exitCode, .violations, "1 outranks 4")
        report.trials[1].outcome = .deadlock
        XCTAssertEqual(report.exitCode, .trialFailures, "3 outranks 1 and 4")
    }
}
