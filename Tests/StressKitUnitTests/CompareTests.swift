@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
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

    // MARK: - Matching cells

    private func renamed(_ trials: [TrialResult], experiment: String? = nil, change: (inout TrialSpec) -> Void = { _ in }) -> [TrialResult] {
        trials.map { r in
            var r = r
            if let experiment { r.trial.experiment = experiment }
            change(&r.trial)
            return r
        }
    }

    func testARenamedExperimentStillMatches() {
        let base = Synthetic.latencyCell([1000, 1010, 990, 1005, 995])
        let report = BaselineComparer.compare(baseline: base, new: renamed(base, experiment: "renamed"), settings: ComparisonSettings())
        XCTAssertEqual(report.cells.map(\.verdict), [.unchanged])
        XCTAssertEqual(report.cells[0].cell.experiment, "renamed")
        XCTAssertEqual(report.cells[0].baselineCell?.experiment, "e")
        XCTAssertEqual(report.onlyInBaseline, [])
    }

    /// A paced run, a longer window or another fuzz tuning is another
    /// measurement: reported as not comparable, never compared.
    func testCellsMeasuredDifferentlyAreNotComparable() {
        let base = Synthetic.latencyCell([1000, 1010, 990, 1005, 995])
        let paced = renamed(base) {
            $0.load = LoadSettings(mode: .paced, rate: .perSecond(200_000), poisson: false)
            $0.durationNanoseconds = 1_000_000_000
        }
        let report = BaselineComparer.compare(baseline: base, new: paced, settings: ComparisonSettings())
        XCTAssertEqual(report.cells.map(\.verdict), [.notComparable])
        XCTAssertEqual(report.cells[0].reason,
                       "measured differently: window 1s here, 100ms in the baseline; load paced 200k/s here, closed in the baseline")
        XCTAssertNil(report.cells[0].pValue, "not part of the Holm family")
        let tuned = renamed(base) { $0.fuzz = FuzzSettings(.off); $0.fuzz.spinProbability = 0.5 }
        XCTAssertEqual(BaselineComparer.compare(baseline: base, new: tuned, settings: ComparisonSettings()).cells[0].reason,
                       "measured differently: fuzz spinProbability 0.5 here, 0.0 in the baseline")
        let checks = ThresholdEvaluator.evaluate(paced, policy: GatePolicy(planThresholds: [try! ThresholdParser.parse("p50 <= 1.1 * baseline")]),
                                                 baseline: base)
        XCTAssertEqual(checks.map(\.status), [.notEvaluated])
        XCTAssertTrue(checks[0].message.contains("the baseline measured e/mutex/t2 differently (window 1s here"), checks[0].message)
    }

    /// One workload in two experiments with different windows: each finds its
    /// own baseline cell by name, although both share workload and strategy.
    func testTheExperimentNameBreaksTies() {
        let short = renamed(Synthetic.latencyCell([1000, 1010, 990, 1005, 995]), experiment: "short")
        let long = renamed(Synthetic.latencyCell([2000, 2010, 1990, 2005, 1995]), experiment: "long") { $0.durationNanoseconds = 1_000_000_000 }
        let report = BaselineComparer.compare(baseline: short + long, new: long + short, settings: ComparisonSettings())
        XCTAssertEqual(report.cells.map(\.cell.experiment), ["long", "short"])
        XCTAssertEqual(report.cells.map(\.verdict), [.unchanged, .unchanged])
        XCTAssertEqual(report.cells.map(\.baselineCell), [nil, nil])
    }

    /// A portfolio gives each repetition its own profile; the cell is the
    /// portfolio, so all five repetitions are compared together.
    func testAPortfolioIsOneCell() {
        let specs = (0..<5).map { i in
            var spec = Synthetic.trial(repetition: i, opsPerSecond: 1000, latencyNs: 1000).trial
            spec.fuzz = FuzzSettings(.portfolio).forRepetition(i)
            return spec
        }
        XCTAssertEqual(specs.map(\.fuzz.profile), [.chaos, .pct, .yield, .light, .chaos])
        XCTAssertEqual(Set(specs.map(\.fuzz.rotatedFrom)), [.portfolio])
        XCTAssertEqual(Set(specs.map { CellKey($0) }).count, 1)
        XCTAssertEqual(CellKey(specs[0]).description, "e/mutex/t2 fuzz=portfolio")
        let trials = specs.enumerated().map { i, spec in
            var r = Synthetic.trial(repetition: i, opsPerSecond: 1000, latencyNs: 1000 + UInt64(i))
            r.trial = spec
            return r
        }
        let report = BaselineComparer.compare(baseline: trials, new: trials, settings: ComparisonSettings())
        XCTAssertEqual(report.cells.map(\.newSamples.count), [5])
        XCTAssertEqual(report.cells.map(\.verdict), [.unchanged])
    }

    // MARK: - Coverage

    /// A gate that compared nothing must not pass: no cell in common is a
    /// usage error (2), and so are baseline cells the run lacks unless
    /// partial comparisons are allowed. Below a violation, above a regression.
    func testABaselineThatDoesNotCoverTheRunIsAUsageError() {
        let cell = Synthetic.latencyCell([1000, 1010, 990, 1005, 995])
        let other = Synthetic.latencyCell([1000, 1010, 990, 1005, 995], strategy: "nslock")
        var report = Synthetic.report(cell)
        report.gate = GateReport.evaluate(cell, policy: GatePolicy(), baseline: Synthetic.report(other))
        XCTAssertEqual(report.gate?.comparison?.comparedCells, 0)
        XCTAssertEqual(report.gate?.comparison?.onlyInNew?.map(\.description), ["e/mutex/t2"])
        XCTAssertEqual(report.gate?.coverageProblem,
                       "no cell of this run could be compared with the baseline (1 cell(s) here; 1 baseline cell(s) missing from this run): is it a baseline of this plan, run with the same settings?")
        XCTAssertEqual(report.exitCode, .usage)
        report.trials[0].outcome = .violated
        XCTAssertEqual(report.exitCode, .violations, "what the trials say outranks the gate's coverage")

        // Half the baseline missing: a usage error, unless --allow-partial.
        report = Synthetic.report(cell)
        report.gate = GateReport.evaluate(cell, policy: GatePolicy(), baseline: Synthetic.report(cell + other))
        XCTAssertEqual(report.gate?.coverageProblem,
                       "1 baseline cell(s) missing from this run; only 1 cell(s) were compared. Pass --allow-partial to accept a partial comparison")
        XCTAssertEqual(report.exitCode, .usage)
        report.gate = GateReport.evaluate(cell, policy: GatePolicy(comparison: ComparisonSettings(allowPartial: true)),
                                          baseline: Synthetic.report(cell + other))
        XCTAssertNil(report.gate?.coverageProblem)
        XCTAssertEqual(report.exitCode, .passed)
        // New cells the baseline lacks are fine: a strategy added by the change.
        report.gate = GateReport.evaluate(cell + other, policy: GatePolicy(), baseline: Synthetic.report(cell))
        XCTAssertNil(report.gate?.coverageProblem)
        var uncovered = Synthetic.report(cell)
        uncovered.gate = GateReport.evaluate(cell, policy: GatePolicy(), baseline: Synthetic.report(other))
        XCTAssertTrue(MarkdownReport.render(uncovered).contains("**The baseline does not cover this run:** no cell of this run"))
        XCTAssertTrue(JUnitReport.render(uncovered).contains("<failure type=\"coverage\" message=\"no cell of this run"))
        XCTAssertTrue(GateSummary.render(uncovered.gate, planFile: "p.yaml").contains("FAILED: the baseline does not cover this run: no cell"))
    }

    func testSettingsFromOlderFilesDecodeWithoutAllowPartial() throws {
        let json = Data(#"{"metric": "p50", "tolerance": 0.1, "confidence": 0.95, "resamples": 4000, "minimumSamples": 5}"#.utf8)
        let s = try ResultCoding.decoder().decode(ComparisonSettings.self, from: json)
        XCTAssertFalse(s.allowPartial)
        XCTAssertEqual(s, ComparisonSettings())
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
        // The exact distribution sums to C(n+m, n) splits, with or without ties.
        XCTAssertEqual(Statistics.rankSumDistribution(Statistics.doubledMidranks([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), choosing: 5).reduce(0, +), 252)
        XCTAssertEqual(Statistics.rankSumDistribution(Statistics.doubledMidranks([30, 30, 30, 40, 40, 40, 30, 40, 40, 40]), choosing: 5).reduce(0, +), 252)
        XCTAssertEqual(Statistics.doubledMidranks([30, 40, 30, 30, 50]), [4, 8, 4, 4, 10], "ties share rank 2 (doubled 4)")
    }

    /// The exact test with ties, worked by hand: six 30s and four 40s, the new
    /// side holding four 40s and one 30. Of the 252 splits, those as far from
    /// the centre (two 40s a side) hold all four 40s on one side: 6 + 6 = 12.
    func testExactRankTestWithTies() {
        let t = Statistics.mannWhitney([30, 30, 30, 30, 30], [40, 40, 30, 40, 40])
        XCTAssertTrue(t.exact)
        XCTAssertEqual(t.u, 22.5)
        XCTAssertEqual(t.pValue, 12.0 / 252, accuracy: 1e-12)
        // The normal approximation said 0.0056 for the same samples, an eighth of this.
        XCTAssertGreaterThan(t.pValue, 0.04)
        // 40 values is still exact; 41 falls back to the approximation.
        XCTAssertTrue(Statistics.mannWhitney(Array(repeating: 1, count: 20), Array(repeating: 2, count: 20)).exact)
        XCTAssertFalse(Statistics.mannWhitney(Array(repeating: 1, count: 20), Array(repeating: 2, count: 21)).exact)
    }

    func testHolmAdjustment() {
        // Sorted 0.01, 0.02, 0.04 times 3, 2, 1 = 0.03, 0.04, 0.04 (kept monotone).
        let adjusted = Statistics.holmAdjusted([0.04, 0.01, 0.02])
        XCTAssertEqual(adjusted[0], 0.04, accuracy: 1e-12)
        XCTAssertEqual(adjusted[1], 0.03, accuracy: 1e-12)
        XCTAssertEqual(adjusted[2], 0.04, accuracy: 1e-12)
        XCTAssertEqual(Statistics.holmAdjusted([0.5, 0.6]), [1, 1], "capped at 1")
        XCTAssertEqual(Statistics.holmAdjusted([]), [])
        let s = ComparisonSettings()
        XCTAssertEqual([1, 2, 6, 7, 23, 24, 33, 85, 86].map { s.samplesNeeded(forCells: $0) }, [5, 5, 5, 6, 6, 7, 7, 7, 8])
    }

    // MARK: - Quantized latencies

    func testTheClockStepAndBucketWidthAreReadOffTheRecord() throws {
        let cell = try XCTUnwrap(Cell.group(Synthetic.latencyCell([30, 40], clockStepNs: 10).map { r in
            var r = r
            // A real record's spread: 401, 411, 421, ... as a 10 ns TSC gives them.
            r.measurement?.histogram = (0..<20).map { [UInt64(401 + 10 * $0), 100] }
            return r
        }).first)
        XCTAssertEqual(MetricResolution.clockStep(histogram: cell.trials[0].measurement!.histogram), 10)
        XCTAssertEqual(MetricResolution.of(.p50, at: 500, in: cell), 10)
        XCTAssertEqual(MetricResolution.of(.p50, at: 1_000_000, in: cell), 512, "3 significant digits: 1/1024 to 1/2048 of the value")
        XCTAssertNil(MetricResolution.of(.opsPerSecond, at: 1000, in: cell))
        XCTAssertNil(MetricResolution.of(.mean, at: 1000, in: cell))
        XCTAssertEqual(MetricResolution.bucketWidth(at: 2047), 1)
        XCTAssertEqual(MetricResolution.bucketWidth(at: 2048), 2)
        XCTAssertEqual(MetricResolution.bucketWidth(at: 4096), 4)
        XCTAssertNil(MetricResolution.clockStep(histogram: [[30, 5], [40, 5]]), "two values say nothing about the clock")
    }

    /// The audit's false alarm: a 30 ns p50 on a clock with 10 ns steps, four
    /// of five repetitions one step up. Not a regression.
    func testAPFiftyOneClockStepUpIsUnchanged() {
        let report = BaselineComparer.compare(
            baseline: Synthetic.latencyCell([30, 30, 30, 30, 30], clockStepNs: 10),
            new: Synthetic.latencyCell([40, 40, 30, 40, 40], clockStepNs: 10),
            settings: ComparisonSettings())
        let c = report.cells[0]
        XCTAssertEqual(c.verdict, .unchanged, c.reason)
        XCTAssertEqual(c.resolution, 10)
        XCTAssertEqual(c.reason, "a change of 10ns, within one step of p50's resolution here (10ns: clock step or histogram bucket)")
        // Even all five one step up is rounding on this clock; on a clock with
        // 1 ns steps the same medians are a significant 33% slowdown.
        let allUp = BaselineComparer.compare(
            baseline: Synthetic.latencyCell([30, 30, 30, 30, 30], clockStepNs: 10),
            new: Synthetic.latencyCell([40, 40, 40, 40, 40], clockStepNs: 10), settings: ComparisonSettings())
        XCTAssertEqual(allUp.cells[0].verdict, .unchanged, allUp.cells[0].reason)
        let fineClock = BaselineComparer.compare(
            baseline: Synthetic.latencyCell([30, 30, 30, 30, 30], clockStepNs: 1),
            new: Synthetic.latencyCell([40, 40, 40, 40, 40], clockStepNs: 1), settings: ComparisonSettings())
        XCTAssertEqual(fineClock.cells[0].verdict, .regressed, fineClock.cells[0].reason)
    }

    /// Two steps up on every repetition is a change the clock can see: judged
    /// by the statistics like any other.
    func testTwoClockStepsOnEveryRepetitionAreJudged() {
        let report = BaselineComparer.compare(
            baseline: Synthetic.latencyCell([30, 30, 30, 30, 30], clockStepNs: 10),
            new: Synthetic.latencyCell([50, 50, 50, 50, 50], clockStepNs: 10),
            settings: ComparisonSettings())
        XCTAssertEqual(report.cells[0].verdict, .regressed, report.cells[0].reason)
    }

    /// A realistic 25% slowdown (about 3.3 µs to 4.1 µs, with spread) is still
    /// caught, alone and among 32 unchanged cells once there are enough repetitions.
    func testARealTwentyFivePercentShiftWithSpreadIsCaught() {
        let base: [UInt64] = [3290, 3300, 3280, 3310, 3295, 3305, 3285]
        let slow = base.map { UInt64(Double($0) * 1.25) }
        let alone = BaselineComparer.compare(baseline: Synthetic.latencyCell(Array(base.prefix(5)), clockStepNs: 10),
                                             new: Synthetic.latencyCell(Array(slow.prefix(5)), clockStepNs: 10),
                                             settings: ComparisonSettings())
        XCTAssertEqual(alone.cells[0].verdict, .regressed, alone.cells[0].reason)
        XCTAssertEqual(alone.cells[0].ratio ?? 0, 1.25, accuracy: 0.01)

        func manyCells(repetitions: Int) -> ComparisonReport {
            var baseline: [TrialResult] = [], new: [TrialResult] = []
            for threads in 1...33 {
                let b = Array(base.prefix(repetitions))
                baseline += Synthetic.latencyCell(b, threads: threads, clockStepNs: 10)
                new += Synthetic.latencyCell(threads == 7 ? Array(slow.prefix(repetitions)) : b, threads: threads, clockStepNs: 10)
            }
            return BaselineComparer.compare(baseline: baseline, new: new, settings: ComparisonSettings())
        }
        let seven = manyCells(repetitions: 7)
        XCTAssertEqual(seven.testedCells, 33)
        XCTAssertEqual(seven.cells.filter { $0.verdict == .regressed }.map(\.cell.threads), [7])
        XCTAssertEqual(seven.cells.filter { $0.verdict == .unchanged }.count, 32)
        XCTAssertTrue(seven.cells[6].reason.contains("Holm-adjusted over 33 cells"), seven.cells[6].reason)
        // With 5 a side, complete separation gives p = 0.0079, and 33 × 0.0079 > 0.05:
        // no cell can be significant, and the reason says how many repetitions would do.
        let five = manyCells(repetitions: 5)
        XCTAssertEqual(five.cells[6].verdict, .inconclusive)
        XCTAssertTrue(five.cells[6].reason.hasSuffix("with 5 repetitions a side no cell of 33 can be significant: run at least 7"), five.cells[6].reason)
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
