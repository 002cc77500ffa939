import Histogram
@testable import StressCore
import XCTest

/// A trial's latency summary and buckets, computed in one pass over the
/// non-empty buckets (none at all when the histogram comes from the hot
/// loop's tick counts), must be exactly the figures HdrHistogram computes
/// itself with its walks: the same buckets, the same mean to the last bit,
/// the same percentiles, minimum and maximum.
final class LatencyDigestTests: XCTestCase {
    private static let percentiles: [Double] = [50, 90, 99, 99.9, 99.99]

    /// HdrHistogram's own figures for `histogram`.
    private func reference(_ histogram: Histogram<UInt64>) -> (summary: LatencySummary?, buckets: [[UInt64]]) {
        let buckets = histogram.recordedValues().map { [$0.value, UInt64($0.count)] }
        guard histogram.totalCount > 0 else { return (nil, buckets) }
        let p = Self.percentiles.map { Int(histogram.valueAtPercentile($0)) }
        return (LatencySummary(count: Int(histogram.totalCount), minNanoseconds: Int(histogram.min),
                               meanNanoseconds: histogram.mean, p50Nanoseconds: p[0], p90Nanoseconds: p[1],
                               p99Nanoseconds: p[2], p999Nanoseconds: p[3], p9999Nanoseconds: p[4],
                               maxNanoseconds: Int(histogram.max)), buckets)
    }

    private func emptyReference() -> Histogram<UInt64> {
        Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: LatencyHistogram.highestTrackableNanoseconds,
                          numberOfSignificantValueDigits: .three)
    }

    /// Random latencies, from a few ticks to seconds and past the trackable
    /// top, with heavy repeats and a long tail, as real trials have them.
    private func randomTicks(_ random: inout SplitMix64) -> [UInt64] {
        let n = Int(random.next() % 3000)
        return (0..<n).map { _ in
            switch random.next() % 10 {
            case 0: return random.next() % 20
            case 1: return random.next() % 10_000_000_000
            case 2: return TickHistogram.highestTrackable + random.next() % 1_000_000
            case 3: return 1_000 + random.next() % 3  // the same bucket, many times
            default: return 50 + random.next() % 200_000
            }
        }
    }

    func testTheTickPathGivesHdrHistogramsOwnFigures() {
        var random = SplitMix64(seed: 0x1A7E)
        for round in 0..<24 {
            let ticks = randomTicks(&random)
            let perTick = [1.0, 0.37, 2.9, 0.5 + Double(random.next() % 1000) / 400][round % 4]
            var counts = TickHistogram()
            defer { counts.deallocate() }
            for t in ticks { counts.record(t) }
            let converted = counts.latencyHistogram(nanosecondsPerTick: perTick)
            XCTAssertEqual(converted.knownBuckets == nil, ticks.isEmpty, "round \(round): the digest needs no walk of the counts")
            let digest = converted.digest()
            let expected = reference(converted.storage)
            XCTAssertEqual(digest.buckets, expected.buckets, "round \(round)")
            XCTAssertEqual(digest.summary, expected.summary, "round \(round)")
            XCTAssertEqual(converted.count, UInt64(ticks.count))
        }
    }

    func testRecordedAndMergedHistogramsGiveHdrHistogramsOwnFigures() {
        var random = SplitMix64(seed: 0xD16E57)
        for round in 0..<12 {
            var a = LatencyHistogram(), b = LatencyHistogram()
            var plain = emptyReference()
            for t in randomTicks(&random) {
                if t % 2 == 0 { a.record(t) } else { b.record(t, count: 3) }
                let clamped = min(max(t, 1), LatencyHistogram.highestTrackableNanoseconds)
                XCTAssertTrue(plain.record(clamped, count: t % 2 == 0 ? 1 : 3))
            }
            a.merge(b)
            let digest = a.digest()
            let expected = reference(plain)
            XCTAssertEqual(digest.buckets, expected.buckets, "round \(round)")
            XCTAssertEqual(digest.summary, expected.summary, "round \(round)")
            XCTAssertEqual(a.summary(), expected.summary)
            XCTAssertEqual(a.buckets, expected.buckets)
        }
    }

    /// A histogram made from known values and then changed forgets them: its
    /// digest walks the counts, and so counts what was added.
    func testAChangeAfterTheKnownValuesIsCounted() {
        var h = LatencyHistogram(ascending: [(100, 2), (5_000, 1)])
        XCTAssertNotNil(h.knownBuckets)
        XCTAssertEqual(h.buckets, [[100, 2], [5_003, 1]])
        h.record(100)
        XCTAssertNil(h.knownBuckets)
        XCTAssertEqual(h.buckets, [[100, 3], [5_003, 1]])
        var other = LatencyHistogram()
        other.record(7)
        h.merge(other)
        XCTAssertEqual(h.buckets, [[7, 1], [100, 3], [5_003, 1]])
        XCTAssertEqual(h.summary()?.p50Nanoseconds, 100)
    }

    /// Values not in ascending order are still counted right: the digest
    /// falls back to walking the counts.
    func testValuesOutOfOrderFallBackToTheWalk() {
        let h = LatencyHistogram(ascending: [(5_000, 1), (100, 2), (100, 1)])
        XCTAssertNil(h.knownBuckets)
        var plain = emptyReference()
        XCTAssertTrue(plain.record(5_000))
        XCTAssertTrue(plain.record(100, count: 3))
        XCTAssertEqual(h.digest().buckets, reference(plain).buckets)
        XCTAssertEqual(h.digest().summary, reference(plain).summary)
        XCTAssertNil(LatencyHistogram(ascending: []).digest().summary)
        XCTAssertEqual(LatencyHistogram(ascending: []).digest().buckets, [])
    }
}
