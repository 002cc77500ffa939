import StressCore

/// How `stressbench ab` judges the pairs of a cell: which figure, how big a
/// change matters, how sure it must be, and which test.
package struct PairedSettings: Sendable, Codable, Equatable {
    /// The figure each pair's ratio is taken of (default ``PairedMetric/cpuNsPerOp``).
    public var metric: PairedMetric
    /// The relative change that matters: a cell regresses only when its
    /// whole interval for the median ratio lies beyond this (0.02 = 2%).
    public var tolerance: Double
    /// The confidence of the interval, and 1 − the test's level (0.95: a 95%
    /// interval and p < 0.05, after the Holm correction over the cells).
    public var confidence: Double
    /// Bootstrap resamples per cell.
    public var resamples: Int
    /// The test on the pairs' log-ratios.
    public var test: PairedTestKind
    /// Fewer complete pairs than this makes a cell `inconclusive`.
    public var minimumPairs: Int

    /// Settings.
    public init(
        metric: PairedMetric = .defaultMetric, tolerance: Double = Self.defaultTolerance, confidence: Double = 0.95,
        resamples: Int = 4000, test: PairedTestKind = .wilcoxon, minimumPairs: Int = Self.defaultMinimumPairs
    ) {
        self.metric = metric
        self.tolerance = tolerance
        self.confidence = confidence
        self.resamples = resamples
        self.test = test
        self.minimumPairs = minimumPairs
    }

    /// The default tolerance, 2%: the paired ratios of two runs of one binary
    /// on a shared 2-core machine stay well within it (docs/paired-gate.md), while a 5%
    /// slowdown clears it with room for the interval.
    public static let defaultTolerance = 0.02

    /// Six pairs: the fewest with which either test can reach p < 0.05 at all
    /// (2 / 2⁶ = 0.031).
    public static let defaultMinimumPairs = 6

    /// The significance level of the test, before the correction for the cells.
    public var alpha: Double { 1 - confidence }

    /// The fewest pairs per cell `stressbench ab` runs by default, whatever
    /// the test would settle for: the statistics can call a 5% change with
    /// fewer only when the pairs agree closely, which they do not on a
    /// shared machine. With other builds running on the reference machine
    /// (2 cores), 25 pairs caught a 5% slowdown of a 27 ns operation in 16
    /// comparisons of 20, 50 pairs in 17 of 20, and neither called a
    /// regression comparing a build with itself (docs/paired-gate.md).
    public static let defaultPairs = 50

    /// The pairs per cell `stressbench ab` runs for `cells` cells unless told:
    /// ``defaultPairs``, or ``pairsNeeded(forCells:)`` when that is more.
    public func defaultPairs(forCells cells: Int) -> Int {
        Swift.max(Self.defaultPairs, pairsNeeded(forCells: cells))
    }

    /// Pairs per cell with which a comparison of `cells` cells can call a cell
    /// regressed even when one pair, the one with the smallest difference,
    /// goes the other way (a disturbed trial): at least ``minimumPairs``, and
    /// enough for that p-value to pass the Holm correction's first step,
    /// α / cells. With the signed-rank test at 95%: 7 for 1 cell, 8 for 2 or
    /// 3, 9 up to 6, 10 up to 12, 11 up to 25.
    public func pairsNeeded(forCells cells: Int) -> Int {
        var n = Swift.max(2, minimumPairs)
        while Statistics.pairedPValueWithOneDiscordant(n, test: test) * Double(Swift.max(1, cells)) >= alpha && n < 1000 { n += 1 }
        return n
    }

    /// Pairs a side with which any cell of `cells` can be significant at all
    /// (every pair on one side).
    public func pairsForAnyVerdict(forCells cells: Int) -> Int {
        var n = Swift.max(1, minimumPairs)
        while Statistics.smallestPairedPValue(n) * Double(Swift.max(1, cells)) >= alpha && n < 1000 { n += 1 }
        return n
    }
}
