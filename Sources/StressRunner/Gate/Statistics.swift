import Foundation
import StressCore

/// The small statistics the gate needs, written out so every number in a
/// verdict can be checked by hand. All of it is deterministic: the bootstrap
/// takes its seed from the caller.
package enum Statistics {
    /// The median (the mean of the middle two for an even count); nil when empty.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let mid = s.count / 2
        return s.count % 2 == 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
    }

    /// The value below which a fraction `q` (0...1) of the sorted `values` lie,
    /// interpolating linearly between neighbours (type 7, the common default).
    public static func quantile(sorted values: [Double], _ q: Double) -> Double {
        precondition(!values.isEmpty)
        let h = Double(values.count - 1) * Swift.min(Swift.max(q, 0), 1)
        let lo = Int(h.rounded(.down)), hi = Swift.min(lo + 1, values.count - 1)
        return values[lo] + (h - Double(lo)) * (values[hi] - values[lo])
    }

    // MARK: - Mann-Whitney U

    /// The result of a two-sided Mann-Whitney U (Wilcoxon rank-sum) test.
    public struct RankTest: Sendable, Equatable {
        /// U of the second sample: pairs (a, b) with b > a, ties counting one half.
        public var u: Double
        /// Two-sided p-value: how often a U at least this far from its centre
        /// would appear if both samples came from one distribution.
        public var pValue: Double
        /// True when the p-value came from the exact permutation distribution,
        /// false for the normal approximation.
        public var exact: Bool
    }

    /// The largest n + m for which ``mannWhitney(_:_:)`` works out the exact
    /// distribution (a few million additions at most; 5 + 5 is 252 splits).
    public static let exactRankTestLimit = 40

    /// Tests whether `b` tends to be larger or smaller than `a`. It uses ranks
    /// only, so one wild repetition cannot dominate it.
    ///
    /// For up to ``exactRankTestLimit`` values in all the p-value is exact:
    /// the share of all C(n+m, m) ways of splitting the pooled values into
    /// groups of n and m whose rank sum lies at least as far from its centre
    /// as the observed one, with tied values sharing their mean rank. Ties
    /// are the normal case for quantized figures (a p50 that moves in 10 ns
    /// clock steps), where the normal approximation's tie-corrected variance
    /// shrinks and its p-value comes out far too small. Larger samples use
    /// that approximation, with tie and continuity corrections.
    public static func mannWhitney(_ a: [Double], _ b: [Double]) -> RankTest {
        let n = a.count, m = b.count
        guard n > 0, m > 0 else { return RankTest(u: 0, pValue: 1, exact: true) }
        var u = 0.0
        for x in a {
            for y in b {
                if y > x { u += 1 } else if y == x { u += 0.5 }
            }
        }
        let all = a + b
        if all.count <= exactRankTestLimit {
            return RankTest(u: u, pValue: exactPValue(all, n: n), exact: true)
        }
        // Normal approximation with the tie correction of the variance.
        let mean = Double(n * m) / 2
        var tieTerm = 0.0
        for (_, t) in Dictionary(grouping: all, by: { $0 }) where t.count > 1 {
            let c = Double(t.count)
            tieTerm += c * c * c - c
        }
        let total = Double(n + m)
        let variance = Double(n * m) / 12 * ((total + 1) - tieTerm / (total * (total - 1)))
        guard variance > 0 else { return RankTest(u: u, pValue: 1, exact: false) }
        let z = Swift.max(0, abs(u - mean) - 0.5) / variance.squareRoot()
        return RankTest(u: u, pValue: Swift.min(1, erfc(z / 2.0.squareRoot())), exact: false)
    }

    /// The exact two-sided permutation p-value of the rank sum of the values
    /// after the first `n` of `pooled`.
    static func exactPValue(_ pooled: [Double], n: Int) -> Double {
        let ranks = doubledMidranks(pooled)
        let m = pooled.count - n
        let observed = ranks[n...].reduce(0, +)
        // Under the null every split is equally likely; the mean rank sum of m
        // values is m (N + 1) / 2, doubled m (N + 1).
        let centre = m * (pooled.count + 1)
        let distance = abs(observed - centre)
        let ways = rankSumDistribution(ranks, choosing: m)
        var extreme = 0.0, total = 0.0
        for (sum, count) in ways.enumerated() where count > 0 {
            total += count
            if abs(sum - centre) >= distance { extreme += count }
        }
        return Swift.min(1, extreme / total)
    }

    /// Twice the rank of every value (1-based, ties sharing the mean of their
    /// ranks): doubling keeps shared ranks such as 3.5 whole numbers.
    static func doubledMidranks(_ values: [Double]) -> [Int] {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Int](repeating: 0, count: values.count)
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count && values[order[j + 1]] == values[order[i]] { j += 1 }
            // Positions i...j hold ranks i+1 ... j+1, whose mean doubled is i + j + 2.
            for k in i...j { ranks[order[k]] = i + j + 2 }
            i = j + 1
        }
        return ranks
    }

    /// For every total s, in how many ways `m` of `ranks` can be chosen so
    /// that their ranks add up to s (a subset-sum count; doubles hold the
    /// counts, binomial coefficients, exactly far beyond 40 values).
    static func rankSumDistribution(_ ranks: [Int], choosing m: Int) -> [Double] {
        let total = ranks.reduce(0, +)
        var ways = [[Double]](repeating: [Double](repeating: 0, count: total + 1), count: m + 1)
        ways[0][0] = 1
        var reach = 0
        for (seen, r) in ranks.enumerated() {
            reach += r
            for k in stride(from: Swift.min(m, seen + 1), through: 1, by: -1) {
                for s in stride(from: reach, through: r, by: -1) where ways[k - 1][s - r] != 0 {
                    ways[k][s] += ways[k - 1][s - r]
                }
            }
        }
        return ways[m]
    }

    // MARK: - Multiple comparisons

    /// Holm–Bonferroni adjusted p-values for a family of tests: sorted
    /// ascending, the i-th smallest (from 0) is multiplied by (k − i), and each
    /// is raised to at least the one before it. Rejecting every test whose
    /// adjusted p is below α keeps the chance of any false rejection in the
    /// family at most α, whatever the tests' dependence, and is never less
    /// powerful than plain Bonferroni.
    public static func holmAdjusted(_ pValues: [Double]) -> [Double] {
        let k = pValues.count
        var adjusted = [Double](repeating: 1, count: k)
        var running = 0.0
        for (i, index) in pValues.indices.sorted(by: { pValues[$0] < pValues[$1] }).enumerated() {
            running = Swift.max(running, Swift.min(1, Double(k - i) * pValues[index]))
            adjusted[index] = running
        }
        return adjusted
    }

    /// Holm-adjusts the p-values of the `items` that have one (`pValue`),
    /// storing each in `adjusted`; returns how many there were (the family).
    @discardableResult
    static func holmAdjust<T>(_ items: inout [T], _ pValue: KeyPath<T, Double?>, into adjusted: WritableKeyPath<T, Double?>) -> Int {
        let tested = items.indices.filter { items[$0][keyPath: pValue] != nil }
        for (i, p) in zip(tested, holmAdjusted(tested.map { items[$0][keyPath: pValue]! })) { items[i][keyPath: adjusted] = p }
        return tested.count
    }

    /// The smallest two-sided p-value the exact test can give for sizes n and m
    /// (2 / C(n+m, n)): with fewer samples than that allows, no difference can be
    /// called significant.
    public static func smallestPValue(_ n: Int, _ m: Int) -> Double {
        guard n > 0, m > 0 else { return 1 }
        var c = 1.0
        for k in 1...Swift.min(n, m) { c = c * Double(n + m - k + 1) / Double(k) }
        return Swift.min(1, 2 / c)
    }

    // MARK: - Bootstrap

    /// A percentile-bootstrap confidence interval for median(b) / median(a):
    /// `resamples` times, draw each sample with replacement, take the ratio of
    /// the medians; the interval holds the central `confidence` of those ratios.
    /// Deterministic for a given `seed`. Nil when a median could be zero.
    public static func bootstrapRatioOfMedians(
        _ a: [Double], _ b: [Double], confidence: Double, resamples: Int = 4000, seed: UInt64
    ) -> (low: Double, high: Double)? {
        guard !a.isEmpty, !b.isEmpty, a.allSatisfy({ $0 > 0 }), b.allSatisfy({ $0 > 0 }) else { return nil }
        var rng = SplitMix64(seed: seed)
        var ratios = [Double](repeating: 0, count: resamples)
        var ra = a, rb = b
        for r in 0..<resamples {
            for i in ra.indices { ra[i] = a[rng.next(below: a.count)] }
            for i in rb.indices { rb[i] = b[rng.next(below: b.count)] }
            ratios[r] = median(rb)! / median(ra)!
        }
        ratios.sort()
        let tail = (1 - confidence) / 2
        return (quantile(sorted: ratios, tail), quantile(sorted: ratios, 1 - tail))
    }
}
