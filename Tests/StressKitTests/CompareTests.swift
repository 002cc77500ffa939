@testable import StressKit
import XCTest

/// The statistics behind the baseline comparison, on made-up samples: each
/// verdict is checked on data where the right answer is known.
final class CompareTests: XCTestCase {
    private let settings = ComparisonSettings(metric: .opsPerSecond)

    private func compare(_ base: [Double], _ new: [Double], _ s: ComparisonSettings? = nil) -> CellComparison {
        let report = BaselineComparer.compare(
            baseline: Synthetic.cell(throughputs: base, latencyNs: base.map { _ in 1_000 }),
            new: Synthetic.cell(throughputs: new, latencyNs: new.map { _ in 1_000 }),
            settings: s ?? settings)
        XCTAssertEqual(report.cells.count, 1)
        return report.cells[0]
    }

    func testIdenticalSamplesAreUnchanged() {
        let samples = [1000.0, 1010, 990, 1005, 995]
        let c = compare(samples, samples)
        XCTAssertEqual(c.verdict, .unchanged, c.reason)
        XCTAssertEqual(c.ratio, 1)
        XCTAssertEqual(c.pValue ?? 0, 1, accuracy: 1e-9)
        XCTAssertLessThanOrEqual(c.ratioLow ?? 0, 1)
        XCTAssertGreaterThanOrEqual(c.ratioHigh ?? 2, 1)
    }

    func testAClearTwentyFivePercentSlowdownRegresses() {
        let base = [1000.0, 1010, 990, 1005, 995]
        let new = base.map { $0 / 1.25 }
        let c = compare(base, new)
        XCTAssertEqual(c.verdict, .regressed, c.reason)
        XCTAssertEqual(c.ratio ?? 0, 0.8, accuracy: 1e-9)
        XCTAssertEqual(c.pValue ?? 1, 2.0 / 252, accuracy: 1e-12, "exact two-sided p for complete separation of 5 and 5")
        XCTAssertLessThan(c.ratioHigh ?? 1, 0.9)
        XCTAssertEqual(c.reason, "worse beyond the ±10% tolerance (p = 0.0079)")
    }

    func testAClearSpeedUpImproves() {
        let base = [1000.0, 1010, 990, 1005, 995]
        let c = compare(base, base.map { $0 * 1.3 })
        XCTAssertEqual(c.verdict, .improved, c.reason)
    }

    func testHugeNoiseIsInconclusive() {
        let c = compare([1000, 400, 1600, 700, 1300], [900, 350, 1500, 600, 1250])
        XCTAssertEqual(c.verdict, .inconclusive, c.reason)
        XCTAssertTrue(c.reason.contains("too noisy to tell"), c.reason)
    }

    func testASmallSignificantChangeWithinToleranceIsNotARegression() {
        // 3% slower, perfectly separated: significant, but inside ±10%.
        let base = [1000.0, 1001, 1002, 1003, 1004]
        let c = compare(base, base.map { $0 * 0.97 })
        XCTAssertEqual(c.verdict, .unchanged, c.reason)
        XCTAssertLessThan(c.pValue ?? 1, 0.05)
    }

    func testATighterToleranceTurnsTheSameChangeIntoARegression() {
        let base = [1000.0, 1001, 1002, 1003, 1004]
        var s = settings
        s.tolerance = 0.01
        XCTAssertEqual(compare(base, base.map { $0 * 0.97 }, s).verdict, .regressed)
    }

    func testTooFewSamplesAreInconclusive() {
        let c = compare([1000, 1000, 1000], [500, 500, 500])
        XCTAssertEqual(c.verdict, .inconclusive)
        XCTAssertEqual(c.reason, "too few samples (3 baseline, 3 new; the gate needs 5 a side: set repetitions)")
    }

    func testLatencyRegressesUpwards() {
        var s = settings
        s.metric = .p50
        let base = Synthetic.cell(throughputs: [1, 1, 1, 1, 1], latencyNs: [1_000, 1_010, 990, 1_005, 995])
        let new = Synthetic.cell(throughputs: [1, 1, 1, 1, 1], latencyNs: [1_500, 1_510, 1_490, 1_505, 1_495])
        let report = BaselineComparer.compare(baseline: base, new: new, settings: s)
        XCTAssertEqual(report.cells.first?.verdict, .regressed, report.cells.first?.reason ?? "")
        XCTAssertGreaterThan(report.cells.first?.ratioLow ?? 0, 1.1)
        let back = BaselineComparer.compare(baseline: new, new: base, settings: s)
        XCTAssertEqual(back.cells.first?.verdict, .improved)
    }

    func testCellsAreMatchedByIdentityAndUnmatchedOnesAreListed() {
        let base = Synthetic.cell(throughputs: [1, 1, 1, 1, 1], latencyNs: [1, 1, 1, 1, 1], strategy: "nslock")
        let new = Synthetic.cell(throughputs: [1, 1, 1, 1, 1], latencyNs: [1, 1, 1, 1, 1], strategy: "mutex")
        let report = BaselineComparer.compare(baseline: base, new: new, settings: settings)
        XCTAssertEqual(report.cells.map(\.verdict), [.inconclusive])
        XCTAssertEqual(report.cells.first?.reason, "no matching cell in the baseline")
        XCTAssertEqual(report.onlyInBaseline.map(\.description), ["e/nslock/t2"])
        XCTAssertFalse(report.hasRegression)
    }

    func testTheBootstrapIsDeterministic() {
        let a = [1000.0, 980, 1030, 1010, 960], b = [900.0, 950, 870, 930, 990]
        let x = Statistics.bootstrapRatioOfMedians(a, b, confidence: 0.95, seed: 42)
        let y = Statistics.bootstrapRatioOfMedians(a, b, confidence: 0.95, seed: 42)
        XCTAssertEqual(x?.low, y?.low)
        XCTAssertEqual(x?.high, y?.high)
        XCTAssertEqual(compare(a, b), compare(a, b))
    }

    func testMannWhitneyAgainstKnownValues() {
        // Complete separation of 4 and 4: exact two-sided p = 2 / C(8, 4) = 2/70.
        let sep = Statistics.mannWhitney([1, 2, 3, 4], [5, 6, 7, 8])
        XCTAssertTrue(sep.exact)
        XCTAssertEqual(sep.u, 16)
        XCTAssertEqual(sep.pValue, 2.0 / 70, accuracy: 1e-12)
        // U = 14 (6 beats 4 and 5): P(U ≥ 14) = 4/70 (U = 16, 15, and 14 two ways), two-sided 8/70.
        let near = Statistics.mannWhitney([1, 2, 3, 6], [4, 5, 7, 8])
        XCTAssertEqual(near.u, 14)
        XCTAssertEqual(near.pValue, 8.0 / 70, accuracy: 1e-12)
        // All tied: no evidence at all.
        let tied = Statistics.mannWhitney([5, 5, 5], [5, 5, 5])
        XCTAssertEqual(tied.pValue, 1)
        XCTAssertEqual(Statistics.smallestPValue(3, 3), 0.1, accuracy: 1e-12)
        XCTAssertEqual(Statistics.smallestPValue(5, 5), 2.0 / 252, accuracy: 1e-12)
        // The exact distribution sums to C(n+m, n) orderings.
        XCTAssertEqual(Statistics.exactUDistribution(5, 5).reduce(0, +), 252)
    }

    func testMedianAndQuantile() {
        XCTAssertNil(Statistics.median([]))
        XCTAssertEqual(Statistics.median([3, 1, 2]), 2)
        XCTAssertEqual(Statistics.median([4, 1, 3, 2]), 2.5)
        XCTAssertEqual(Statistics.quantile(sorted: [0, 10], 0.25), 2.5)
    }

    func testRegressionGivesExitCodeFour() {
        var report = Synthetic.report(Synthetic.cell(throughputs: [800, 808, 792, 804, 796], latencyNs: [1, 1, 1, 1, 1]))
        let base = Synthetic.report(Synthetic.cell(throughputs: [1000, 1010, 990, 1005, 995], latencyNs: [1, 1, 1, 1, 1]))
        report.gate = GateReport.evaluate(report.trials, policy: GatePolicy(comparison: settings), baseline: base)
        XCTAssertEqual(report.gate?.regressions.count, 1)
        XCTAssertEqual(report.exitCode, .performanceRegression)
        XCTAssertEqual(report.exitCode.rawValue, 4)
    }
}
