import Foundation

/// The small statistics the gate needs, written out so every number in a
/// verdict can be checked by hand. All of it is deterministic: the bootstrap
/// takes its seed from the caller.
public enum Statistics {
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
        /// True when the p-value came from the exact distribution (small samples
        /// without ties), false for the normal approximation.
        public var exact: Bool
    }

    /// Tests whether `b` tends to be larger or smaller than `a`. It uses ranks
    /// only, so one wild repetition cannot dominate it. Exact for samples of up
    /// to 50 each without ties; otherwise the normal approximation with tie
    /// and continuity corrections.
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
        let hasTies = Set(all).count != all.count
        let mean = Double(n * m) / 2
        if !hasTies && n <= 50 && m <= 50 {
            let counts = exactUDistribution(n, m)
            let total = counts.reduce(0, +)
            let k = Int(u.rounded())
            let lower = counts[0...k].reduce(0, +) / total
            let upper = counts[k...].reduce(0, +) / total
            return RankTest(u: u, pValue: Swift.min(1, 2 * Swift.min(lower, upper)), exact: true)
        }
        // Normal approximation with the tie correction of the variance.
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

    /// The number of orderings of n + m distinct values giving each U = 0...nm,
    /// by the recurrence f(n, m, u) = f(n−1, m, u−m) + f(n, m−1, u), in doubles
    /// (the counts are binomial coefficients, exact well past 50 + 50 in ratio).
    static func exactUDistribution(_ n: Int, _ m: Int) -> [Double] {
        // table[j][u] for the current i: distribution with i values of `a`, j of `b`.
        var previous = (0...m).map { _ in [1.0] }  // i = 0: U = 0 only
        if n == 0 { return previous[m] }
        for i in 1...n {
            var current: [[Double]] = [[1.0]]  // j = 0: U = 0 only
            for j in 1...m {
                var row = [Double](repeating: 0, count: i * j + 1)
                // The largest value is from `b` (adds i to U: b beats every a) ...
                for (u, c) in current[j - 1].enumerated() { row[u + i] += c }
                // ... or from `a` (adds nothing).
                for (u, c) in previous[j].enumerated() { row[u] += c }
                current.append(row)
            }
            previous = current
        }
        return previous[m]
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
