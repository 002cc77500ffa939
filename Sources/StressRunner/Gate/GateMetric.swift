import StressCore

/// A figure a threshold or a baseline comparison can talk about.
///
/// Latencies are in nanoseconds (percentiles of the service-time histogram),
/// throughput in operations per second, the rest are counts. Names are the
/// ones plans use (`p99`, `ops_per_s`).
package enum GateMetric: String, Sendable, Codable, CaseIterable {
    /// Latency percentiles.
    case p50, p90, p99
    /// The 99.9th percentile (also written `p999`).
    case p999 = "p99.9"
    /// The 99.99th percentile (also written `p9999`).
    case p9999 = "p99.99"
    /// Smallest, largest and mean latency.
    case min, max, mean
    /// Operations per second over the measured window.
    case opsPerSecond = "ops_per_s"
    /// A scenario's rounds per second over the measured window.
    case roundsPerSecond = "rounds_per_s"
    /// Broken invariants, summed over a cell's repetitions.
    case violations
    /// Trials of a cell that crashed, deadlocked, hung, timed out or could not be read.
    case failures

    /// What kind of quantity the metric is, which decides the units a bound may use.
    public enum Kind: Sendable {
        /// A time in nanoseconds: bounds need a unit (`50us`).
        case latency
        /// Operations per second: bounds may use `k`, `M`, `G`.
        case rate
        /// A whole number of things.
        case count
    }

    /// The kind of quantity.
    public var kind: Kind {
        switch self {
        case .p50, .p90, .p99, .p999, .p9999, .min, .max, .mean: return .latency
        case .opsPerSecond, .roundsPerSecond: return .rate
        case .violations, .failures: return .count
        }
    }

    /// True when a larger value is better (throughput); false for latencies and counts.
    public var higherIsBetter: Bool { self == .opsPerSecond || self == .roundsPerSecond }

    /// Whether a baseline can be compared on it: performance figures only, since
    /// violations and failures are already the correctness part of the gate.
    public var isPerformance: Bool { kind != .count }

    /// The spellings a plan may use, the canonical name first.
    public var spellings: [String] {
        switch self {
        case .p999: return ["p99.9", "p999"]
        case .p9999: return ["p99.99", "p9999"]
        default: return [rawValue]
        }
    }

    /// The metric spelled `word`, if any.
    public init?(spelling word: String) {
        guard let m = Self.allCases.first(where: { $0.spellings.contains(word) }) else { return nil }
        self = m
    }

    /// The value of this metric in one trial, or nil when the trial has no such
    /// sample (it did not run to the end, or timed nothing).
    public func sample(of result: TrialResult) -> Double? {
        switch self {
        case .violations: return Double(result.violations.count)
        case .failures: return result.outcome.isIncomplete ? 1 : 0
        case .opsPerSecond: return result.measurement.map(\.opsPerSecond)
        case .roundsPerSecond: return result.measurement?.roundsPerSecond
        default: return result.measurement?.latency.flatMap(value(in:))
        }
    }

    /// This latency metric read from a percentile summary; nil for the other
    /// kinds, or when the summary has no samples.
    public func value(in l: LatencySummary) -> Double? {
        guard l.count > 0 else { return nil }
        switch self {
        case .p50: return Double(l.p50Nanoseconds)
        case .p90: return Double(l.p90Nanoseconds)
        case .p99: return Double(l.p99Nanoseconds)
        case .p999: return Double(l.p999Nanoseconds)
        case .p9999: return Double(l.p9999Nanoseconds)
        case .min: return Double(l.minNanoseconds)
        case .max: return Double(l.maxNanoseconds)
        case .mean: return l.meanNanoseconds
        case .opsPerSecond, .roundsPerSecond, .violations, .failures: return nil
        }
    }

    /// A value of this metric for people: `1.2µs`, `3.4M ops/s`, `2`.
    public func format(_ value: Double) -> String {
        switch kind {
        case .latency: return Formatting.latency(Int(value.rounded()))
        case .rate: return Formatting.rate(value) + (self == .roundsPerSecond ? " rounds/s" : " ops/s")
        case .count: return String(Int(value.rounded()))
        }
    }
}

extension TrialOutcome {
    /// Crashed, deadlocked, hung, timed out or unreadable: the outcomes that make
    /// a run's results incomplete (exit code 3).
    public var isIncomplete: Bool {
        switch self {
        case .crashed, .deadlock, .hang, .timeout, .error: return true
        case .passed, .violated, .skipped: return false
        }
    }
}
