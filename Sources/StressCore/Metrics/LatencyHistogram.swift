import Histogram

/// A latency histogram in nanoseconds (HdrHistogram, 3 significant digits,
/// 1 ns to 1000 s; longer values are clamped and still counted).
///
/// One per worker during a trial: recording is a few arithmetic instructions and
/// an increment in memory the worker owns, with no allocation and no lock.
/// Merging adds counts bucket by bucket, which is the only correct way to combine
/// percentiles (averaging percentiles is not).
package struct LatencyHistogram: Sendable {
    /// The largest value tracked; larger values are recorded as this. (About
    /// 17 minutes in nanoseconds, and still minutes in raw ticks of a 3 GHz
    /// counter, which the hot loop records before converting.)
    public static let highestTrackableNanoseconds: UInt64 = 1_000_000_000_000

    private(set) var storage = Histogram<UInt64>(
        lowestDiscernibleValue: 1,
        highestTrackableValue: LatencyHistogram.highestTrackableNanoseconds,
        numberOfSignificantValueDigits: .three
    )

    /// The histogram's non-empty buckets in order, as `(value, count)` with
    /// HdrHistogram's iterated value (the highest equivalent of the bucket),
    /// when they are known without walking the counts: for a histogram made
    /// by ``init(ascending:)`` and not changed since. Nil otherwise.
    ///
    /// Why: walking HdrHistogram's counts visits every bucket up to the
    /// largest value, tens of thousands for latencies of milliseconds, and
    /// the summary walked them several times (the mean, each percentile, the
    /// buckets). In a debug build that was about 25 ms a trial, most of an
    /// in-process trial's time in the tests.
    private(set) var knownBuckets: [(value: UInt64, count: UInt64)]?

    /// An empty histogram.
    public init() {}

    /// A histogram of `values`, given in ascending order with their counts,
    /// whose ``digest()`` needs no walk of the counts.
    init(ascending values: [(nanoseconds: UInt64, count: UInt64)]) {
        var known: [(value: UInt64, count: UInt64)] = []
        known.reserveCapacity(values.count)
        var ascending = true
        for (nanoseconds, count) in values where count > 0 {
            let clamped = Self.clamp(nanoseconds)
            storage.record(clamped, count: count)
            // Values that share a bucket share its highest equivalent value,
            // which HdrHistogram's iteration reports for that bucket.
            let value = storage.highestEquivalentForValue(clamped)
            let last = known.last?.value
            if last == value {
                known[known.count - 1].count += count
            } else {
                // Not ascending after all: the digest walks the counts.
                if let last, last > value { ascending = false }
                known.append((value, count))
            }
        }
        knownBuckets = ascending ? known : nil
    }

    @inline(__always)
    private static func clamp(_ nanoseconds: UInt64) -> UInt64 {
        Swift.min(Swift.max(nanoseconds, 1), highestTrackableNanoseconds)
    }

    /// One empty histogram made once, for runs whose latency nobody reads
    /// (making one costs more than a short controlled run's work).
    static let none = LatencyHistogram()

    /// Records one value.
    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64) {
        knownBuckets = nil
        storage.record(Self.clamp(nanoseconds))
    }

    /// Records `value` as `count` occurrences.
    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64, count: UInt64) {
        knownBuckets = nil
        storage.record(Self.clamp(nanoseconds), count: count)
    }

    /// Adds every count of `other` into this one.
    public mutating func merge(_ other: LatencyHistogram) {
        knownBuckets = nil
        storage.add(other.storage)
    }

    /// The number of recorded values.
    public var count: UInt64 { storage.totalCount }

    /// The value at `percentile` (0...100), to the histogram's precision.
    public func value(atPercentile percentile: Double) -> UInt64 { storage.valueAtPercentile(percentile) }

    /// The percentile summary, or nil when nothing was recorded.
    public func summary() -> LatencySummary? { digest().summary }

    /// The non-empty buckets, as `[value, count]` pairs: a compact, lossless (to
    /// the histogram's precision) form for result records, so reports can merge
    /// histograms across trials later.
    public var buckets: [[UInt64]] { digest().buckets }

    /// The summary and the buckets together, from one pass over the non-empty
    /// buckets (none at all for a histogram made by ``init(ascending:)``).
    ///
    /// The figures are HdrHistogram's own, computed as it computes them: the
    /// mean sums each bucket's median equivalent times its count in bucket
    /// order; a percentile is the highest equivalent value of the first bucket
    /// at which the running count reaches the percentile's share of the total
    /// (rounded up, at least 1), kept within the recorded minimum and maximum.
    /// `LatencyDigestTests` checks them against HdrHistogram's.
    package func digest() -> (summary: LatencySummary?, buckets: [[UInt64]]) {
        let nonEmpty = knownBuckets ?? storage.recordedValues().map { (value: $0.value, count: UInt64($0.count)) }
        let buckets = nonEmpty.map { [$0.value, $0.count] }
        let total = storage.totalCount
        guard total > 0 else { return (nil, buckets) }
        var sum: Double = 0
        for bucket in nonEmpty {
            sum += Double(storage.medianEquivalentForValue(bucket.value)) * Double(bucket.count)
        }
        let percentiles: [Double] = [50, 90, 99, 99.9, 99.99]
        // The count each percentile needs, as HdrHistogram derives it (one ulp
        // off the percentile, so rounding cannot overrun into the next bucket).
        let needed = percentiles.map { p in
            Swift.max(1, UInt64(((p.nextDown * Double(total)) / 100).rounded(.up)))
        }
        let low = storage.min, high = storage.maxRecorded
        var values = [UInt64](repeating: 0, count: percentiles.count)
        var next = 0, running: UInt64 = 0
        for bucket in nonEmpty where next < needed.count {
            running += bucket.count
            while next < needed.count, running >= needed[next] {
                values[next] = Swift.max(Swift.min(bucket.value, high), low)
                next += 1
            }
        }
        let summary = LatencySummary(
            count: Int(total),
            minNanoseconds: Int(low),
            meanNanoseconds: sum / Double(total),
            p50Nanoseconds: Int(values[0]),
            p90Nanoseconds: Int(values[1]),
            p99Nanoseconds: Int(values[2]),
            p999Nanoseconds: Int(values[3]),
            p9999Nanoseconds: Int(values[4]),
            maxNanoseconds: Int(storage.max)
        )
        return (summary, buckets)
    }

    /// A histogram rebuilt from ``buckets``.
    public init(buckets: [[UInt64]]) {
        for pair in buckets where pair.count == 2 { record(pair[0], count: pair[1]) }
    }

    /// HdrHistogram's percentile-distribution text (the `.hgrm` format), in
    /// microseconds as the HdrHistogram plotter expects.
    public func percentileDistribution() -> String {
        var text = ""
        storage.outputPercentileDistribution(to: &text, outputValueUnitScalingRatio: 1000)
        return text
    }
}

/// Percentiles of one latency distribution.
public struct LatencySummary: Sendable, Codable, Equatable {
    /// Number of samples.
    public var count: Int
    // The figures in integer nanoseconds, as the results' JSON and CSV have
    // them (the keys `minNs`, `p50Ns`, …: see `CodingKeys`); the public face
    // is the `Duration` accessors below.
    package var minNanoseconds: Int
    package var meanNanoseconds: Double
    package var p50Nanoseconds: Int
    package var p90Nanoseconds: Int
    package var p99Nanoseconds: Int
    package var p999Nanoseconds: Int
    package var p9999Nanoseconds: Int
    package var maxNanoseconds: Int

    /// The results' JSON keys, unchanged since the figures were public
    /// integers under these names.
    private enum CodingKeys: String, CodingKey {
        case count
        case minNanoseconds = "minNs", meanNanoseconds = "meanNs", maxNanoseconds = "maxNs"
        case p50Nanoseconds = "p50Ns", p90Nanoseconds = "p90Ns", p99Nanoseconds = "p99Ns"
        case p999Nanoseconds = "p999Ns", p9999Nanoseconds = "p9999Ns"
    }
}

extension LatencySummary {
    /// The smallest sample.
    public var minimum: Duration { .nanoseconds(minNanoseconds) }
    /// The arithmetic mean (for reference; read the percentiles for behaviour).
    public var mean: Duration { .nanoseconds(meanNanoseconds) }
    /// The median: half of the samples took at most this long.
    public var p50: Duration { .nanoseconds(p50Nanoseconds) }
    /// The 90th percentile: 90% of the samples took at most this long.
    public var p90: Duration { .nanoseconds(p90Nanoseconds) }
    /// The 99th percentile: 99% of the samples took at most this long.
    public var p99: Duration { .nanoseconds(p99Nanoseconds) }
    /// The 99.9th percentile: all but one sample in a thousand took at most this long.
    public var p999: Duration { .nanoseconds(p999Nanoseconds) }
    /// The 99.99th percentile: all but one sample in ten thousand took at most this long.
    public var p9999: Duration { .nanoseconds(p9999Nanoseconds) }
    /// The largest sample (to the histogram's precision).
    public var maximum: Duration { .nanoseconds(maxNanoseconds) }
}
