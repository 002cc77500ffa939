import Foundation

/// CSV with one row per trial and fixed columns (documented in the README).
/// Times are integer nanoseconds; a cell is empty when the figure is unavailable
/// (for example a crashed trial has no latency), never zero. New columns are
/// only ever appended, so a reader that goes by position keeps working.
public enum CSVReport {
    /// The columns, in order.
    public static let columns = [
        "trial_id", "plan", "experiment", "workload", "parameters", "strategy", "threads", "repetition", "seed",
        "fuzz_profile", "outcome", "warmup_ns", "elapsed_ns", "total_ops", "ops_per_s",
        "lat_count", "lat_min_ns", "lat_mean_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns",
        "lat_p9999_ns", "lat_max_ns", "violations", "first_violation", "failure",
        "allocator", "clock", "sample_every",
    ]

    /// The whole file, header included.
    public static func render(_ report: RunReport) -> String {
        var lines = [columns.joined(separator: ",")]
        for r in report.trials {
            let m = r.measurement, l = m?.latency, t = r.trial
            let cells: [String] = [
                t.id, t.plan, t.experiment, t.workload, t.parameters.compactDescription, t.strategy,
                String(t.threads), String(t.repetition), String(t.seed),
                t.fuzz.profile.rawValue, r.outcome.rawValue, String(t.warmupNs),
                m.map { String($0.elapsedNs) } ?? "", m.map { String($0.totalOps) } ?? "",
                m.map { String(Int($0.opsPerSecond.rounded())) } ?? "",
                l.map { String($0.count) } ?? "", l.map { String($0.minNs) } ?? "",
                l.map { String(Int($0.meanNs.rounded())) } ?? "",
                l.map { String($0.p50Ns) } ?? "", l.map { String($0.p90Ns) } ?? "", l.map { String($0.p99Ns) } ?? "",
                l.map { String($0.p999Ns) } ?? "", l.map { String($0.p9999Ns) } ?? "", l.map { String($0.maxNs) } ?? "",
                m == nil && r.violations.count == 0 ? "" : String(r.violations.count),
                r.violations.samples.first?.summaryLine ?? "",
                r.failure?.message ?? "",
                // How it was measured: the allocator, the clock `auto` resolved
                // to and the sampling interval actually used (both empty when
                // nothing was measured).
                t.allocator.rawValue, m?.timing?.clock ?? "", m?.timing.map { String($0.sampleEvery) } ?? "",
            ]
            lines.append(cells.map(escape).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// RFC 4180 quoting.
    static func escape(_ cell: String) -> String {
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
