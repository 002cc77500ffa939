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

    /// An empty histogram.
    public init() {}

    /// One empty histogram made once, for runs whose latency nobody reads
    /// (making one costs more than a short controlled run's work).
    static let none = LatencyHistogram()

    /// Records one value.
    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64) {
        storage.record(Swift.min(Swift.max(nanoseconds, 1), Self.highestTrackableNanoseconds))
    }

    /// Records `value` as `count` occurrences.
    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64, count: UInt64) {
        storage.record(Swift.min(Swift.max(nanoseconds, 1), Self.highestTrackableNanoseconds), count: count)
    }

    /// Adds every count of `other` into this one.
    public mutating func merge(_ other: LatencyHistogram) { storage.add(other.storage) }

    /// The number of recorded values.
    public var count: UInt64 { storage.totalCount }

    /// The value at `percentile` (0...100), to the histogram's precision.
    public func value(atPercentile percentile: Double) -> UInt64 { storage.valueAtPercentile(percentile) }

    /// The percentile summary, or nil when nothing was recorded.
    public func summary() -> LatencySummary? {
        guard count > 0 else { return nil }
        return LatencySummary(
            count: Int(count),
            minNanoseconds: Int(storage.min),
            meanNanoseconds: storage.mean,
            p50Nanoseconds: Int(value(atPercentile: 50)),
            p90Nanoseconds: Int(value(atPercentile: 90)),
            p99Nanoseconds: Int(value(atPercentile: 99)),
            p999Nanoseconds: Int(value(atPercentile: 99.9)),
            p9999Nanoseconds: Int(value(atPercentile: 99.99)),
            maxNanoseconds: Int(storage.max)
        )
    }

    /// The non-empty buckets, as `[value, count]` pairs: a compact, lossless (to
    /// the histogram's precision) form for result records, so reports can merge
    /// histograms across trials later.
    public var buckets: [[UInt64]] {
        storage.recordedValues().map { [$0.value, UInt64($0.count)] }
    }

    /// A histogram rebuilt from ``buckets``.
    public init(buckets: [[UInt64]]) {
        for pair in buckets where pair.count == 2 { record(pair[0], count: pair[1]) }
    }

    /// This histogram with every value multiplied by `factor` (for turning raw
    /// clock ticks, recorded in the hot loop, into nanoseconds once at the end).
    public func scaled(by factor: Double) -> LatencyHistogram {
        guard factor != 1 else { return self }
        var out = LatencyHistogram()
        for v in storage.recordedValues() {
            out.record(UInt64((Double(v.value) * factor).rounded()), count: UInt64(v.count))
        }
        return out
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
