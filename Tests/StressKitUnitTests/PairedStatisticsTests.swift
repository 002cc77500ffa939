@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The statistics of `stressbench ab` on numbers whose answers are known:
/// the paired tests against values worked out by hand (or by enumerating
/// every signing), the bootstrap's determinism, and each verdict on made-up
/// pairs of trials, so nothing here depends on this machine's speed.
final class PairedStatisticsTests: XCTestCase {
    // MARK: - Wilcoxon signed-rank

    func testSignedRankAllPositiveIsTwoOverTwoToTheN() {
        let t = Statistics.wilcoxonSignedRank([1, 2, 3, 4, 5, 6])
        XCTAssertEqual(t.statistic, 21)
        XCTAssertEqual(t.nonZero, 6)
        XCTAssertTrue(t.exact)
        XCTAssertEqual(t.pValue, 2.0 / 64, accuracy: 1e-15)
    }

    func testSignedRankOneSmallDiscordantPairIsFourOverTwoToTheN() {
        let t = Statistics.wilcoxonSignedRank([-1, 2, 3, 4, 5, 6])
        XCTAssertEqual(t.statistic, 20)
        XCTAssertEqual(t.pValue, 4.0 / 64, accuracy: 1e-15)
        XCTAssertEqual(t.pValue, Statistics.pairedPValueWithOneDiscordant(6, test: .wilcoxon), accuracy: 1e-15)
    }

    /// Hollander & Wolfe's depression-scale example, as R's
    /// `wilcox.test(x, y, paired = TRUE)` reports it: V = 40, p = 0.03906.
    func testSignedRankMatchesTheTextbookExample() {
        let d = [0.952, -0.147, 1.022, 0.43, 0.62, 0.59, 0.49, -0.08, 0.01]
        let t = Statistics.wilcoxonSignedRank(d)
        XCTAssertEqual(t.statistic, 40)
        XCTAssertEqual(t.pValue, 20.0 / 512, accuracy: 1e-15)
    }

    /// With ties the exact distribution is that of the mid-ranks: 42 of the
    /// 256 signings of these ranks are at least as far from the centre
    /// (counted by enumerating them); the zero is dropped.
    func testSignedRankWithTiesAndAZeroUsesMidranks() {
        let t = Statistics.wilcoxonSignedRank([0.5, -0.5, 1, 1, 2, -3, 4, 4, 0])
        XCTAssertEqual(t.nonZero, 8)
        XCTAssertEqual(t.statistic, 28.5)
        XCTAssertEqual(t.pValue, 42.0 / 256, accuracy: 1e-15)
    }

    func testSignedRankIsSymmetricAndHandlesNothing() {
        let d = [0.3, -0.1, 0.25, 0.4, -0.05, 0.2, 0.15]
        XCTAssertEqual(Statistics.wilcoxonSignedRank(d).pValue, Statistics.wilcoxonSignedRank(d.map { -$0 }).pValue, accuracy: 1e-15)
        XCTAssertEqual(Statistics.wilcoxonSignedRank([]).pValue, 1)
        XCTAssertEqual(Statistics.wilcoxonSignedRank([0, 0, 0]).pValue, 1)
    }

    /// Past the exact limit the normal approximation takes over; for a clear
    /// shift it agrees with the exact answer's order of magnitude.
    func testSignedRankNormalApproximationForLargeSamples() {
        let d = (1...240).map { Double($0) * ($0 % 4 == 0 ? -1 : 1) }  // three quarters positive
        let t = Statistics.wilcoxonSignedRank(d)
        XCTAssertFalse(t.exact)
        XCTAssertLessThan(t.pValue, 1e-6)
        let balanced = (1...240).map { Double($0) * ($0 % 2 == 0 ? -1 : 1) }
        XCTAssertGreaterThan(Statistics.wilcoxonSignedRank(balanced).pValue, 0.5)
    }

    // MARK: - Sign test

    func testSignTestIsTheExactBinomial() {
        let nineOfTen = [1, 1, 1, 1, 1, 1, 1, 1, 1, -1.0]
        let t = Statistics.signTest(nineOfTen)
        XCTAssertEqual(t.statistic, 9)
        XCTAssertEqual(t.pValue, 22.0 / 1024, accuracy: 1e-15, "2 × (C(10,0) + C(10,1)) / 2^10")
        XCTAssertEqual(Statistics.signTest([1, -1, 0, 1, -1]).pValue, 1)
        XCTAssertEqual(Statistics.signTest([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).pValue, 2.0 / 64, accuracy: 1e-15)
        XCTAssertEqual(Statistics.pairedPValueWithOneDiscordant(10, test: .sign), 22.0 / 1024, accuracy: 1e-15)
    }

    // MARK: - Holm

    func testHolmAdjustsInPlaceAndSkipsUntestedCells() {
        struct Item { var p: Double?; var adjusted: Double? }
        var items = [Item(p: 0.01), Item(p: nil), Item(p: 0.04), Item(p: 0.03), Item(p: 0.005)]
        let family = Statistics.holmAdjust(&items, \.p, into: \.adjusted)
        XCTAssertEqual(family, 4)
        // Sorted: 0.005×4 = 0.02, 0.01×3 = 0.03, 0.03×2 = 0.06, 0.04×1 raised to 0.06.
        let adjusted = items.map(\.adjusted)
        XCTAssertEqual(adjusted[0]!, 0.03, accuracy: 1e-15)
        XCTAssertNil(adjusted[1])
        XCTAssertEqual(adjusted[2]!, 0.06, accuracy: 1e-15)
        XCTAssertEqual(adjusted[3]!, 0.06, accuracy: 1e-15)
        XCTAssertEqual(adjusted[4]!, 0.02, accuracy: 1e-15)
    }

    // MARK: - Bootstrap

    func testBootstrapIsDeterministicForASeed() throws {
        let ratios = [1.01, 0.99, 1.05, 1.02, 0.98, 1.04, 1.03, 1.00, 1.06, 0.97]
        let a = try XCTUnwrap(Statistics.bootstrapMedian(ratios, confidence: 0.95, resamples: 2000, seed: 7))
        let b = try XCTUnwrap(Statistics.bootstrapMedian(ratios, confidence: 0.95, resamples: 2000, seed: 7))
        XCTAssertEqual(a.low, b.low)
        XCTAssertEqual(a.high, b.high)
        XCTAssertLessThanOrEqual(a.low, Statistics.median(ratios)!)
        XCTAssertGreaterThanOrEqual(a.high, Statistics.median(ratios)!)
        XCTAssertGreaterThanOrEqual(a.low, ratios.min()!)
        XCTAssertLessThanOrEqual(a.high, ratios.max()!)
        // The same numbers on every machine and every run: SplitMix64 from the seed.
        XCTAssertEqual(a.low, 0.99, accuracy: 1e-12)
        XCTAssertEqual(a.high, 1.04, accuracy: 1e-12)
        let constant = try XCTUnwrap(Statistics.bootstrapMedian([1.5, 1.5, 1.5], confidence: 0.95, seed: 1))
        XCTAssertEqual(constant.low, 1.5)
        XCTAssertEqual(constant.high, 1.5)
        XCTAssertNil(Statistics.bootstrapMedian([], confidence: 0.95, seed: 1))
    }

    // MARK: - Pairs needed

    func testPairsNeededFollowTheHolmFirstStep() {
        let s = PairedSettings()
        XCTAssertEqual(s.pairsNeeded(forCells: 1), 7)
        XCTAssertEqual(s.pairsNeeded(forCells: 2), 8)
        XCTAssertEqual(s.pairsNeeded(forCells: 3), 8)
        XCTAssertEqual(s.pairsNeeded(forCells: 6), 9)
        XCTAssertEqual(s.pairsNeeded(forCells: 10), 10)
        XCTAssertEqual(s.pairsNeeded(forCells: 25), 11)
        XCTAssertEqual(s.pairsForAnyVerdict(forCells: 10), 9, "2 / 2^9 × 10 < 0.05")
    }

    // MARK: - Verdicts on made-up pairs

    /// One cell of `count` trials whose ns/op (2 workers) is `nsPerOp(r)`.
    private func cell(_ nsPerOp: (Int) -> Double, count: Int, strategy: String = "mutex", durationNs: Int = 100_000_000,
                      outcome: (Int) -> TrialOutcome = { _ in .passed }) -> [TrialResult] {
        (0..<count).map { r in
            // ns/op = elapsed × threads / ops, with elapsed 0.1 s and 2 threads.
            var t = Synthetic.trial(strategy: strategy, repetition: r, opsPerSecond: 2e9 / nsPerOp(r) * 10, latencyNs: 30, outcome: outcome(r))
            t.measurement?.totalOps = Int((2e8 / nsPerOp(r)).rounded())
            t.trial.durationNanoseconds = durationNs
            return t
        }
    }

    /// The synthetic trials have no CPU times: the pairs are judged on wall time.
    private let settings = PairedSettings(metric: .nsPerOp)

    private let noise = [1.000, 1.004, 0.997, 1.002, 0.999, 1.003, 0.998, 1.001, 1.000, 0.996, 1.002, 0.999]

    func testTheSameFiguresAreUnchanged() throws {
        let old = cell({ 30 * self.noise[$0] }, count: 10)
        let c = try XCTUnwrap(PairedComparer.compare(old: old, new: old, settings: settings).first)
        XCTAssertEqual(c.verdict, .unchanged, c.reason)
        XCTAssertEqual(c.completePairs, 10)
        XCTAssertEqual(c.ratio ?? 0, 1, accuracy: 1e-6)
        XCTAssertEqual(c.pValue ?? 0, 1, "every difference is zero")
    }

    func testAFivePercentSlowdownRegressesEvenWithOneDiscordantPair() throws {
        let old = cell({ 30 * self.noise[$0] }, count: 10)
        // Every pair 5% slower except pair 3, 0.5% faster.
        let new = cell({ $0 == 3 ? 30 * self.noise[3] * 0.995 : 30 * self.noise[($0 + 1) % 10] * 1.05 }, count: 10)
        let c = try XCTUnwrap(PairedComparer.compare(old: old, new: new, settings: settings).first)
        XCTAssertEqual(c.verdict, .regressed, c.reason)
        XCTAssertEqual(c.pValue ?? 1, 4.0 / 1024, accuracy: 1e-12, "the discordant pair has the smallest |log-ratio|")
        XCTAssertGreaterThan(c.ratioLow ?? 0, 1.02)
        XCTAssertTrue(c.reason.hasPrefix("median ratio 1.05"), c.reason)
        XCTAssertTrue(c.reason.contains("worse beyond the ±2% tolerance"), c.reason)
    }

    func testASpeedUpImproves() throws {
        let old = cell({ 30 * self.noise[$0] }, count: 8)
        let new = cell({ 27 * self.noise[$0] }, count: 8)
        let c = try XCTUnwrap(PairedComparer.compare(old: old, new: new, settings: settings).first)
        XCTAssertEqual(c.verdict, .improved, c.reason)
        XCTAssertEqual(c.ratio ?? 0, 0.9, accuracy: 1e-6)
    }

    func testTooFewPairsForTheCellsIsInconclusiveWithAHint() {
        // 10 cells of 6 pairs, each 10% slower: p = 2/64 per cell, 0.31 after Holm.
        let names = (0..<10).map { "s\($0)" }
        let old = names.flatMap { n in cell({ 30 * self.noise[$0] }, count: 6, strategy: n) }
        let new = names.flatMap { n in cell({ 33 * self.noise[$0] }, count: 6, strategy: n) }
        let cells = PairedComparer.compare(old: old, new: new, settings: settings)
        XCTAssertEqual(cells.count, 10)
        for c in cells {
            XCTAssertEqual(c.verdict, .inconclusive, c.reason)
            XCTAssertEqual(c.pValueAdjusted ?? 0, 10 * 2.0 / 64, accuracy: 1e-12)
            XCTAssertTrue(c.reason.contains("run at least 9 (--pairs)"), c.reason)
        }
    }

    func testATrialThatDidNotPassLeavesItsPairOut() throws {
        let old = cell({ 30 * self.noise[$0] }, count: 8, outcome: { $0 == 2 ? .crashed : .passed })
        let new = cell({ 30 * self.noise[$0] }, count: 8)
        let c = try XCTUnwrap(PairedComparer.compare(old: old, new: new, settings: settings).first)
        XCTAssertEqual(c.pairs.count, 8)
        XCTAssertEqual(c.completePairs, 7)
        XCTAssertNil(c.pairs[2].ratio)
        let fewer = PairedComparer.compare(old: Array(old.prefix(5)), new: Array(new.prefix(5)), settings: settings)
        XCTAssertEqual(fewer.first?.verdict, .inconclusive)
        XCTAssertTrue(fewer.first?.reason.contains("too few complete pairs (4") == true, fewer.first?.reason ?? "")
    }

    func testCellsMeasuredDifferentlyAreNotComparableAndExitTwo() throws {
        let old = cell({ 30 * self.noise[$0] }, count: 8)
        let new = cell({ 30 * self.noise[$0] }, count: 8, durationNs: 200_000_000)
        let cells = PairedComparer.compare(old: old, new: new, settings: settings)
        XCTAssertEqual(cells.first?.verdict, .notComparable)
        XCTAssertTrue(cells.first?.reason.contains("old build") == true, cells.first?.reason ?? "")
        let report = report(cells, old: old, new: new)
        XCTAssertEqual(report.exitCode, .usage)
        XCTAssertNotNil(report.coverageProblem)
    }

    func testExitCodesFollowCompare() {
        let old = cell({ 30 * self.noise[$0] }, count: 10)
        let slower = cell({ 33 * self.noise[$0] }, count: 10)
        let regressed = report(PairedComparer.compare(old: old, new: slower, settings: settings), old: old, new: slower)
        XCTAssertEqual(regressed.exitCode, .performanceRegression)
        XCTAssertEqual(regressed.exit.code, 4)
        let crashed = cell({ 33 * self.noise[$0] }, count: 10, outcome: { $0 == 0 ? .crashed : .passed })
        XCTAssertEqual(report(PairedComparer.compare(old: old, new: crashed, settings: settings), old: old, new: crashed).exitCode,
                       .trialFailures, "a crash outranks a regression")
        let violated = cell({ 30 * self.noise[$0] }, count: 10, outcome: { $0 == 0 ? .violated : .passed })
        XCTAssertEqual(report(PairedComparer.compare(old: violated, new: old, settings: settings), old: violated, new: old).exitCode,
                       .violations)
        XCTAssertEqual(report(PairedComparer.compare(old: old, new: old, settings: settings), old: old, new: old).exitCode, .passed)
    }

    func testTheReportsNameARegressionAndHowToRerunIt() {
        let old = cell({ 30 * self.noise[$0] }, count: 10)
        let slower = cell({ 33 * self.noise[$0] }, count: 10)
        let r = report(PairedComparer.compare(old: old, new: slower, settings: settings), old: old, new: slower)
        let rerun = "stressbench ab stressbench stressbench synthetic.yaml --only e/mutex/t2 --pairs 10"
        XCTAssertEqual(PairedReportText.rerunCommand(r.cells[0].cell, of: r), rerun)
        let summary = PairedReportText.summary(r)
        XCTAssertTrue(summary.contains("regressed: e/mutex/t2: median ratio 1.100 over 10 pairs, worse beyond the ±2% tolerance (p = 0.002)"), summary)
        XCTAssertTrue(summary.contains("rerun: " + rerun), summary)
        XCTAssertTrue(summary.contains("1 cell(s): 1 regressed"), summary)
        let markdown = PairedReportText.markdown(r)
        XCTAssertTrue(markdown.hasPrefix("## ❌ stressbench ab `synthetic`: performance regression (exit code 4)"), markdown)
        XCTAssertTrue(markdown.contains("| `e/mutex/t2` | 10/10 | 30.00ns | 33.00ns | 1.100 [1.100, 1.100] | 0.002 | 0.002 | **regressed** |"), markdown)
        let junit = PairedReportText.junit(r)
        XCTAssertTrue(junit.contains("<testsuites name=\"stressbench ab\" tests=\"21\" failures=\"1\" errors=\"0\" skipped=\"0\">"), junit)
        XCTAssertTrue(junit.contains("<failure type=\"regression\""), junit)
    }

    func testTheScheduleRunsRepetitionFirst() {
        let trials = cell({ _ in 30 }, count: 3, strategy: "a") + cell({ _ in 30 }, count: 3, strategy: "b").map { t in
            var t = t
            t.trial.index += 3
            return t
        }
        let order = PairedRunner.schedule(trials.map(\.trial)).map(\.id)
        XCTAssertEqual(order, ["e/a/t2/r0", "e/b/t2/r0", "e/a/t2/r1", "e/b/t2/r1", "e/a/t2/r2", "e/b/t2/r2"])
    }

    private func report(_ cells: [PairedCellComparison], old: [TrialResult], new: [TrialResult]) -> PairedReport {
        let description = BuildDescription(plan: "synthetic", trials: old.map(\.trial), registry: .builtIn)
        let build = PairedBuild(executable: "stressbench", description: description)
        return PairedReport(plan: "synthetic", planFile: "synthetic.yaml", startedAt: Date(), finishedAt: Date(), old: build, new: build,
                            buildNotes: [], settings: settings, pairsPerCell: old.count, stop: nil, cells: cells,
                            oldTrials: old, newTrials: new)
    }
}
