#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a workload picks keys from a key space `0..<count`: uniformly, or with a
/// Zipf (power-law) skew where key `k` is drawn with probability proportional to
/// `1 / (k + 1)^exponent`, so key 0 is the hottest.
///
/// Real caches see skewed traffic: a few hot keys take most of the reads, which
/// is exactly where contention (and reader-writer locking) matters. Make one per
/// trial in ``Workload/makeState(threads:)``: a Zipf distribution precomputes its
/// cumulative table there, once, so that ``sample(_:)`` on the hot path is a
/// binary search over raw memory that never allocates.
///
/// Sampling only reads the table, so one instance is shared by every worker.
package final class KeyDistribution: @unchecked Sendable {
    // @unchecked: the table is written once in `init` and only read afterwards.

    /// The number of keys; samples are in `0..<count`.
    public let count: Int
    /// The Zipf exponent, or nil for a uniform distribution.
    public let exponent: Double?
    /// For Zipf: `thresholds[k]` is P(key ≤ k) scaled to the full `UInt64` range,
    /// the last one `UInt64.max`, so one 64-bit draw picks a key by binary search.
    private let thresholds: UnsafeMutablePointer<UInt64>?

    /// Keys `0..<count`, every one equally likely.
    public static func uniform(count: Int) -> KeyDistribution { KeyDistribution(count: count, exponent: nil) }

    /// Keys `0..<count`, key `k` with probability proportional to `1/(k+1)^exponent`
    /// (exponent 0 is uniform; around 1 is typical of web and cache traces).
    public static func zipf(count: Int, exponent: Double) -> KeyDistribution {
        KeyDistribution(count: count, exponent: exponent)
    }

    private init(count: Int, exponent: Double?) {
        precondition(count > 0, "a key space needs at least one key")
        self.count = count
        self.exponent = exponent
        guard let exponent else {
            thresholds = nil
            return
        }
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: count)
        var total = 0.0
        for k in 0..<count { total += pow(Double(k + 1), -exponent) }
        var running = 0.0
        for k in 0..<count {
            running += pow(Double(k + 1), -exponent)
            let fraction = running / total
            // 2^64 as a Double; anything at or past it (rounding) is the top.
            table[k] = fraction >= 1 || k == count - 1 ? UInt64.max : UInt64(fraction * 18_446_744_073_709_551_616.0)
        }
        thresholds = table
    }

    deinit { thresholds?.deallocate() }

    /// The probability of drawing `key` (for tests and reports; not for the hot path).
    public func probability(of key: Int) -> Double {
        guard let thresholds else { return 1 / Double(count) }
        let upper = Double(thresholds[key])
        let lower = key == 0 ? 0 : Double(thresholds[key - 1])
        return (upper - lower) / 18_446_744_073_709_551_616.0
    }

    /// Draws a key from `random`: one 64-bit draw, no allocation.
    @inline(__always)
    public func sample(_ random: inout SplitMix64) -> Int {
        guard let thresholds else { return random.next(below: count) }
        let x = random.next()
        // The first k with x < thresholds[k].
        var low = 0, high = count - 1
        while low < high {
            let mid = (low + high) >> 1
            if x < thresholds[mid] { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
