#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The histogram a worker records into inside its measured loop: raw clock
/// ticks, counted in HdrHistogram's own bucket layout (three significant
/// digits, 1 to about 10^12 ticks), in memory the worker owns.
///
/// Why not record straight into ``LatencyHistogram``: its `record` goes through
/// a Swift array (a uniqueness check per call), keeps the minimum, maximum and
/// total up to date, and takes nanoseconds, which would need a floating-point
/// conversion per operation. Here a record is a leading-zero count, a shift, an
/// add and a compare, about a nanosecond. After the loop, ``latencyHistogram(nanosecondsPerTick:)``
/// turns the counts into a regular HdrHistogram in nanoseconds, once.
///
/// `@unchecked Sendable`: it is a pointer to counts with one owner at a time,
/// the worker while it records, then whoever merges its report.
struct TickHistogram: @unchecked Sendable {
    /// HdrHistogram's layout for 3 significant digits and a lowest discernible
    /// value of 1: sub-buckets of 2048 values (the top 1024 of each bucket are
    /// new), bucket `b` holding values `< 2048 << b` at a resolution of `1 << b`.
    private static let subBucketHalfCountMagnitude = 10
    private static let subBucketHalfCount = 1 << subBucketHalfCountMagnitude
    private static let subBucketMask: UInt64 = 2047
    private static let leadingZeroCountBase = 64 - subBucketHalfCountMagnitude - 1
    /// The largest value counted as itself; larger ones count in the top bucket.
    static let highestTrackable: UInt64 = 1_000_000_000_000
    /// Enough buckets for `highestTrackable`.
    private static let bucketCount: Int = {
        var smallestUntrackable: UInt64 = 2048, buckets = 1
        while smallestUntrackable <= highestTrackable {
            smallestUntrackable <<= 1
            buckets += 1
        }
        return buckets
    }()
    static let countsLength = (bucketCount + 1) << subBucketHalfCountMagnitude

    private let counts: UnsafeMutablePointer<UInt64>
    /// The largest value recorded, exactly (not to bucket precision).
    private(set) var maxTicks: UInt64 = 0
    /// How many times ``record(_:weight:)`` was called (timed operations, not their weight).
    private(set) var samples: Int = 0

    /// An empty histogram. Its memory lives until ``deallocate()``.
    ///
    /// The counts (a quarter of a megabyte) are an anonymous mapping of their
    /// own, whose pages the kernel zeroes when first touched: a histogram
    /// costs resident memory only for the few buckets its latencies fall in.
    /// (`calloc` would clear them all at once outside the main arena, which
    /// made a trial of 4096 workers, three histograms each, take 2.5 GB.)
    init() {
        let memory = mmap(nil, Self.byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let memory, memory != MAP_FAILED else {
            fatalError("stressbench: cannot map a latency histogram (\(Self.byteCount) bytes): \(String(cString: strerror(errno)))")
        }
        counts = memory.bindMemory(to: UInt64.self, capacity: Self.countsLength)
    }

    private static var byteCount: Int { countsLength * MemoryLayout<UInt64>.stride }

    /// Frees the counts; the histogram must not be used afterwards.
    func deallocate() { munmap(counts, Self.byteCount) }

    /// The counts index of `value`, as HdrHistogram computes it.
    @inline(__always)
    static func index(of value: UInt64) -> Int {
        let bucket = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucket = Int(truncatingIfNeeded: value >> UInt64(bucket))
        return (bucket + 1) << subBucketHalfCountMagnitude + (subBucket - subBucketHalfCount)
    }

    /// The smallest value that lands at `index`, and the width of its bucket.
    static func range(at index: Int) -> (lowest: UInt64, width: UInt64) {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 {
            subBucket -= subBucketHalfCount
            bucket = 0
        }
        return (UInt64(subBucket) << UInt64(bucket), 1 << UInt64(bucket))
    }

    /// Counts `ticks` `weight` times.
    @inline(__always)
    mutating func record(_ ticks: UInt64, weight: UInt64 = 1) {
        recordUncounted(ticks, weight: weight)
        samples &+= 1
    }

    /// ``record(_:weight:)`` without adding to ``samples``: for a loop that
    /// adds its samples once, with ``addSamples(_:)``, rather than keep one
    /// more count in a register.
    @inline(__always)
    mutating func recordUncounted(_ ticks: UInt64, weight: UInt64 = 1) {
        let value = ticks < Self.highestTrackable ? ticks : Self.highestTrackable
        counts[Self.index(of: value)] &+= weight
        if value > maxTicks { maxTicks = value }
    }

    /// Adds `n` to ``samples``, for `n` calls of ``recordUncounted(_:weight:)``.
    mutating func addSamples(_ n: Int) { samples &+= n }

    /// Adds every count of `other` (same layout, same clock) into this one.
    mutating func add(_ other: TickHistogram) {
        guard other.samples > 0 else { return }
        for i in 0...Self.index(of: other.maxTicks) where other.counts[i] != 0 { counts[i] &+= other.counts[i] }
        if other.maxTicks > maxTicks { maxTicks = other.maxTicks }
        samples &+= other.samples
    }

    /// The same distribution in nanoseconds, as an HdrHistogram: every bucket's
    /// count at its middle value times `nanosecondsPerTick`, and the exact
    /// maximum as the maximum.
    func latencyHistogram(nanosecondsPerTick: Double) -> LatencyHistogram {
        guard samples > 0 else { return LatencyHistogram() }
        let maxIndex = Self.index(of: maxTicks)
        var values: [(nanoseconds: UInt64, count: UInt64)] = []
        for i in 0...maxIndex where counts[i] != 0 {
            let (lowest, width) = Self.range(at: i)
            // The exact maximum rather than its bucket's middle, so `max` is true.
            let ticks = i == maxIndex ? maxTicks : lowest + (width - 1) / 2
            values.append((UInt64((Double(ticks) * nanosecondsPerTick).rounded()), counts[i]))
        }
        // In ascending order (the ticks ascend with the index, and the scale
        // is positive), so its summary needs no walk of HdrHistogram's counts.
        return LatencyHistogram(ascending: values)
    }
}
