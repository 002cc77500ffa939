import Foundation
import StressCore

/// The figure a paired comparison takes from each trial; each pair's ratio is
/// new / old of it.
///
/// ``workerCpuNsPerOp`` (the default), ``cpuNsPerOp`` and ``nsPerOp`` are counted, not sampled: a
/// time over the measured window divided by the operations completed in it.
/// Over a window of millions of operations they resolve a change of a
/// fraction of a nanosecond, where a percentile read off the service-time
/// histogram moves in whole clock steps (about 10 ns on AMD Zen's TSC), so a
/// 30 ns operation's p50 cannot show a change below about a third.
///
/// CPU time is the default because a shared runner takes the CPU away from a
/// trial for a varying share of its window: on the reference machine, with
/// other builds running, a trial process had 40% of a CPU and the wall-time
/// figure of two runs of one build differed by 18% to 24% (standard
/// deviation of the pairs' log-ratios), the CPU-time figure by 10% to 13%
/// (docs/paired-gate.md). The workers' own thread clocks are the default
/// over the process's because they are exact and count only the code under
/// test (docs/paired-gate.md has the calibration). Where trials block (a
/// contended lock that parks its waiters), CPU time leaves the waits out:
/// compare ``nsPerOp`` too.
package enum PairedMetric: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Wall time per operation per worker over the measured window:
    /// elapsed × threads / operations (the inverse of ops/s per worker).
    case nsPerOp
    /// CPU time of the trial process (every thread: workers, watchdog, the
    /// runtime's) per operation over the measured window. Time the process
    /// spent waiting for a CPU is not in it; time a worker spent spinning for
    /// a lock is; time a worker spent parked, waiting for a lock, is not.
    case cpuNsPerOp
    /// CPU time of the worker threads alone (their own clocks, exact) per
    /// operation over the measured window; where the workers are tasks, which
    /// have no thread of their own, the process's (``cpuNsPerOp``). Both
    /// builds run the same plan, so the two trials of a pair always measure
    /// it the same way.
    case workerCpuNsPerOp
    /// A figure of the baseline gate (``GateMetric``): a latency percentile,
    /// the mean, or ops/s.
    case gate(GateMetric)

    /// The default: ``workerCpuNsPerOp``.
    public static let defaultMetric = PairedMetric.workerCpuNsPerOp

    /// Every metric, for messages.
    public static var allCases: [PairedMetric] {
        [.nsPerOp, .cpuNsPerOp, .workerCpuNsPerOp] + GateMetric.allCases.filter(\.isPerformance).map(PairedMetric.gate)
    }

    /// The metric spelled `word` (`ns_per_op`, `cpu_ns_per_op`, `p50`, `ops_per_s`, ...).
    public init?(spelling word: String) {
        switch word {
        case "ns_per_op": self = .nsPerOp
        case "cpu_ns_per_op": self = .cpuNsPerOp
        case "worker_cpu_ns_per_op": self = .workerCpuNsPerOp
        default:
            guard let m = GateMetric(spelling: word), m.isPerformance else { return nil }
            self = .gate(m)
        }
    }

    /// The canonical spelling.
    public var rawValue: String {
        switch self {
        case .nsPerOp: return "ns_per_op"
        case .cpuNsPerOp: return "cpu_ns_per_op"
        case .workerCpuNsPerOp: return "worker_cpu_ns_per_op"
        case .gate(let m): return m.rawValue
        }
    }

    /// The canonical spelling, as ``rawValue``.
    public var description: String { rawValue }

    /// True when a larger value is better (ops/s); false for times.
    public var higherIsBetter: Bool {
        if case .gate(let m) = self { return m.higherIsBetter }
        return false
    }

    /// The value in one trial, or nil when the trial has none (it did not run
    /// to the end, completed no operation, or the platform gave no CPU time).
    public func sample(of result: TrialResult) -> Double? {
        switch self {
        case .nsPerOp:
            guard let m = result.measurement, m.totalOps > 0, m.elapsedNanoseconds > 0 else { return nil }
            return Double(m.elapsedNanoseconds) * Double(result.trial.threads) / Double(m.totalOps)
        case .cpuNsPerOp:
            guard let cpu = result.measurement?.resources?.cpuNsPerOp, cpu > 0 else { return nil }
            return cpu
        case .workerCpuNsPerOp:
            guard let resources = result.measurement?.resources else { return nil }
            guard let cpu = resources.workerCpuNsPerOp ?? resources.cpuNsPerOp, cpu > 0 else { return nil }
            return cpu
        case .gate(let m):
            return m.sample(of: result)
        }
    }

    /// The smallest step the figure moves by at `value` in `cell`, or nil
    /// when it is not quantised (see ``MetricResolution``).
    public func resolution(at value: Double, in cell: Cell) -> Double? {
        guard case .gate(let m) = self else { return nil }
        return MetricResolution.of(m, at: value, in: cell)
    }

    /// A value for people: `30.41ns`, `1.23µs`, `3.4M ops/s`.
    public func format(_ value: Double) -> String {
        switch self {
        case .nsPerOp, .cpuNsPerOp, .workerCpuNsPerOp:
            return value < 100 ? String(format: "%.2fns", value) : Formatting.latency(Int(value.rounded()))
        case .gate(let m):
            return m.format(value)
        }
    }
}

extension PairedMetric: Codable {
    /// Reads a metric from its spelling.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let metric = PairedMetric(spelling: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown metric '\(text)'"))
        }
        self = metric
    }

    /// Writes the metric's canonical spelling.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
