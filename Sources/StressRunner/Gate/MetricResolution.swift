import StressCore

/// The smallest step a latency figure can move by: below it, two runs of one
/// build differ by rounding, not by speed.
///
/// Two things quantize a recorded latency. The histogram keeps 3 significant
/// digits (1 ns steps below 2048 ns, then 2 ns, 4 ns, ... doubling with each
/// power of two). And the clock ticks in steps of its own: on AMD Zen the TSC
/// advances in jumps worth about 10 ns, so a 30 ns lock round trip is recorded
/// as 30 or 40 and never 35. Neither is written in a result record as such,
/// but both show in the histogram it carries: the recorded values of a dense
/// distribution sit one clock step apart. A p50 of a 30-80 ns operation thus
/// moves between repetitions in whole 10 ns steps, and five samples of it are
/// mostly ties.
package enum MetricResolution {
    /// Values below this are recorded exactly (unit buckets) by a 3-digit
    /// HdrHistogram, so gaps between them are the clock's.
    static let unitBucketLimit: UInt64 = 2048

    /// Fewer gaps than this between recorded values below ``unitBucketLimit``
    /// say too little to tell the clock's step.
    static let gapsNeeded = 4

    /// The width of the histogram bucket holding `value` ns: 1 below 2048,
    /// then doubling at every power of two (1/1024 to 1/2048 of the value).
    public static func bucketWidth(at value: Double) -> Double {
        guard value >= Double(unitBucketLimit) else { return 1 }
        let whole = UInt64(value)
        let powerOfTwo = whole.bitWidth - whole.leadingZeroBitCount - 1
        return Double(1 << (powerOfTwo - 10))
    }

    /// The clock's step as the histogram shows it: the most common gap between
    /// neighbouring recorded values below 2048 ns (ties go to the smaller gap).
    /// Nil when the histogram has too few such values to tell; slower
    /// operations do not need it, since their bucket widths and the tolerance
    /// dwarf any clock step.
    public static func clockStep(histogram buckets: [[UInt64]]) -> Double? {
        let values = buckets.compactMap { $0.count == 2 && $0[1] > 0 && $0[0] < unitBucketLimit ? $0[0] : nil }.sorted()
        guard values.count > gapsNeeded else { return nil }
        var gaps: [UInt64: Int] = [:]
        for (low, high) in zip(values, values.dropFirst()) where high > low { gaps[high - low, default: 0] += 1 }
        let commonest = gaps.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }
        return commonest.map { Double($0.key) }
    }

    /// The resolution of `metric` at `value` in `cell`: the larger of the bucket
    /// width there and the largest clock step any of its repetitions shows.
    /// Nil for figures that are not read off a histogram (ops/s, the mean).
    public static func of(_ metric: GateMetric, at value: Double, in cell: Cell) -> Double? {
        guard metric.kind == .latency, metric != .mean else { return nil }
        let step = cell.trials.compactMap { $0.measurement.flatMap { clockStep(histogram: $0.histogram) } }.max() ?? 1
        return Swift.max(step, bucketWidth(at: value))
    }

    /// A change smaller than this many steps is rounding: one whole step, with
    /// room for a step that converts from clock ticks to 9 or 11 ns instead of 10.
    public static let stepsThatAreNoise = 1.5
}
