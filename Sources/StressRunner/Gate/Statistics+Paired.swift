import Foundation
import StressCore

/// The statistics of a paired comparison (`stressbench ab`): each pair is one
/// trial of each build, run back to back, and what is tested is the pairs'
/// differences (the logarithms of their ratios), not two independent samples.
extension Statistics {
    /// The result of a two-sided one-sample test on paired differences.
    public struct PairedTest: Sendable, Equatable {
        /// The statistic: for the signed-rank test W+, the sum of the ranks of
        /// the positive differences (tied |differences| sharing their mean
        /// rank); for the sign test, the number of positive differences.
        public var statistic: Double
        /// Differences that were not zero: the ones the test used (a zero says
        /// nothing about the direction and is left out, as Wilcoxon did).
        public var nonZero: Int
        /// Two-sided p-value: how often a statistic at least this far from its
        /// centre would appear if each difference were as likely to be
        /// positive as negative.
        public var pValue: Double
        /// True when the p-value came from the exact distribution, false for
        /// the normal approximation.
        public var exact: Bool
    }

    /// The largest number of non-zero differences for which
    /// ``wilcoxonSignedRank(_:)`` works out the exact distribution (about
    /// n³ additions: 8 million for 200).
    public static let exactSignedRankLimit = 200

    /// Wilcoxon's signed-rank test of whether `differences` are centred on 0.
    ///
    /// Zeros are dropped; the absolute values of the rest are ranked (ties
    /// share their mean rank) and W+ is the sum of the ranks of the positive
    /// ones. Up to ``exactSignedRankLimit`` differences the p-value is exact:
    /// the share of the 2ⁿ ways of signing the ranks whose sum lies at least
    /// as far from its centre n(n+1)/4 as W+, computed over the actual
    /// (tied) ranks. More use the normal approximation with the tie
    /// correction of the variance and a continuity correction.
    ///
    /// It uses the sizes of the differences only through their order, so one
    /// wild pair counts no more than any other large one, but it assumes the
    /// differences are symmetric about their centre (on log-ratios of a time
    /// per operation, a fair assumption); ``signTest(_:)`` assumes nothing.
    public static func wilcoxonSignedRank(_ differences: [Double]) -> PairedTest {
        let d = differences.filter { $0 != 0 && !$0.isNaN }
        let n = d.count
        guard n > 0 else { return PairedTest(statistic: 0, nonZero: 0, pValue: 1, exact: true) }
        let ranks = doubledMidranks(d.map(abs))
        let total = ranks.reduce(0, +)
        let observed = zip(d, ranks).reduce(0) { $0 + ($1.0 > 0 ? $1.1 : 0) }
        let wPlus = Double(observed) / 2
        if n <= exactSignedRankLimit {
            // Under the null every signing is equally likely; W+ (doubled) is
            // the sum of a random subset of the doubled ranks, centred on total / 2.
            let ways = signedRankDistribution(ranks)
            let distance = abs(2 * observed - total)
            var extreme = 0.0, all = 0.0
            for (sum, count) in ways.enumerated() where count > 0 {
                all += count
                if abs(2 * sum - total) >= distance { extreme += count }
            }
            return PairedTest(statistic: wPlus, nonZero: n, pValue: Swift.min(1, extreme / all), exact: true)
        }
        let nn = Double(n)
        let mean = nn * (nn + 1) / 4
        var tieTerm = 0.0
        for (_, t) in Dictionary(grouping: d.map(abs), by: { $0 }) where t.count > 1 {
            let c = Double(t.count)
            tieTerm += c * c * c - c
        }
        let variance = nn * (nn + 1) * (2 * nn + 1) / 24 - tieTerm / 48
        guard variance > 0 else { return PairedTest(statistic: wPlus, nonZero: n, pValue: 1, exact: false) }
        let z = Swift.max(0, abs(wPlus - mean) - 0.5) / variance.squareRoot()
        return PairedTest(statistic: wPlus, nonZero: n, pValue: Swift.min(1, erfc(z / 2.0.squareRoot())), exact: false)
    }

    /// For every total s, in how many of the 2ⁿ signings the ranks signed
    /// positive add up to s (a subset-sum count over all subset sizes;
    /// doubles hold the counts exactly up to 2⁵³ and closely far beyond).
    static func signedRankDistribution(_ ranks: [Int]) -> [Double] {
        let total = ranks.reduce(0, +)
        var ways = [Double](repeating: 0, count: total + 1)
        ways[0] = 1
        var reach = 0
        for r in ranks {
            reach += r
            for s in stride(from: reach, through: r, by: -1) where ways[s - r] != 0 {
                ways[s] += ways[s - r]
            }
        }
        return ways
    }

    /// The two-sided sign test: of the non-zero `differences`, how unlikely a
    /// split of positives and negatives at least this uneven is when each is
    /// a fair coin (exact binomial for any count).
    public static func signTest(_ differences: [Double]) -> PairedTest {
        let d = differences.filter { $0 != 0 && !$0.isNaN }
        let n = d.count
        let positives = d.filter { $0 > 0 }.count
        guard n > 0 else { return PairedTest(statistic: 0, nonZero: 0, pValue: 1, exact: true) }
        let k = Swift.min(positives, n - positives)
        // P(X <= k) for X ~ Binomial(n, 1/2), in logs so that large n cannot overflow.
        var tail = 0.0
        for i in 0...k { tail += exp(logChoose(n, i) - Double(n) * log(2.0)) }
        return PairedTest(statistic: Double(positives), nonZero: n, pValue: Swift.min(1, 2 * tail), exact: true)
    }

    /// ln C(n, k).
    static func logChoose(_ n: Int, _ k: Int) -> Double {
        lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
    }

    /// The smallest two-sided p-value either paired test can give with `n`
    /// pairs (every difference on one side: 2 / 2ⁿ).
    public static func smallestPairedPValue(_ n: Int) -> Double {
        n <= 0 ? 1 : Swift.min(1, 2 / pow(2, Double(n)))
    }

    /// The two-sided p-value of `test` with `n` pairs of which only the one
    /// with the smallest difference goes the other way: what the pairs of a
    /// clear change give when one of them is disturbed (signed-rank: 4 / 2ⁿ;
    /// sign test: 2 (n + 1) / 2ⁿ).
    public static func pairedPValueWithOneDiscordant(_ n: Int, test: PairedTestKind) -> Double {
        guard n > 1 else { return 1 }
        switch test {
        case .wilcoxon: return Swift.min(1, 4 / pow(2, Double(n)))
        case .sign: return Swift.min(1, 2 * Double(n + 1) / pow(2, Double(n)))
        }
    }

    /// A percentile-bootstrap confidence interval for the median of `values`:
    /// `resamples` times, draw `values.count` of them with replacement and
    /// take the median; the interval holds the central `confidence` of those
    /// medians. Deterministic for a given `seed`; nil for no values.
    ///
    /// Applied to the per-pair ratios, the pairs are what is resampled, so
    /// each resample keeps the two trials of a pair together.
    public static func bootstrapMedian(
        _ values: [Double], confidence: Double, resamples: Int = 4000, seed: UInt64
    ) -> (low: Double, high: Double)? {
        guard !values.isEmpty, resamples > 0 else { return nil }
        var rng = SplitMix64(seed: seed)
        var medians = [Double](repeating: 0, count: resamples)
        var draw = values
        for r in 0..<resamples {
            for i in draw.indices { draw[i] = values[rng.next(below: values.count)] }
            medians[r] = median(draw)!
        }
        medians.sort()
        let tail = (1 - confidence) / 2
        return (quantile(sorted: medians, tail), quantile(sorted: medians, 1 - tail))
    }
}

/// Which test a paired comparison uses on the pairs' log-ratios.
package enum PairedTestKind: String, Sendable, Codable, CaseIterable {
    /// Wilcoxon's signed-rank test (the default): uses the ranks of the
    /// differences' sizes, assumes they are symmetric about their centre.
    case wilcoxon
    /// The sign test: uses only each difference's direction and assumes
    /// nothing about their sizes; needs a few more pairs for the same power.
    case sign

    /// Runs this test on `differences`.
    public func run(_ differences: [Double]) -> Statistics.PairedTest {
        switch self {
        case .wilcoxon: return Statistics.wilcoxonSignedRank(differences)
        case .sign: return Statistics.signTest(differences)
        }
    }

    /// The test's name in reports.
    public var title: String {
        switch self {
        case .wilcoxon: return "Wilcoxon signed-rank"
        case .sign: return "sign test"
        }
    }
}
