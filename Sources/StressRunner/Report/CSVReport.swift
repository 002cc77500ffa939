import Foundation
import StressCore

/// CSV with one row per trial and fixed columns (documented in docs/outputs.md).
/// Times are integer nanoseconds; a cell is empty when the figure is unavailable
/// (for example a crashed trial has no latency), never zero. New columns are
/// only ever appended, so a reader that goes by position keeps working.
package enum CSVReport {
    /// The columns, in order.
    public static let columns = [
        "trial_id", "plan", "experiment", "workload", "parameters", "strategy", "threads", "repetition", "seed",
        "fuzz_profile", "outcome", "warmup_ns", "elapsed_ns", "total_ops", "ops_per_s",
        "lat_count", "lat_min_ns", "lat_mean_ns", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns",
        "lat_p9999_ns", "lat_max_ns", "violations", "first_violation", "failure",
        "allocator", "clock", "sample_every",
        "acq_p50_ns", "acq_p99_ns", "acq_p999_ns", "acq_max_ns",
        "resp_p50_ns", "resp_p99_ns", "resp_p999_ns", "resp_max_ns",
        "pacing_target_ops_per_s", "pacing_achieved_ops_per_s", "pacing_max_lag_ns", "pacing_kept_up",
        "max_stall_ns", "fairness_cv", "fairness_jain", "starved_thread",
        "cpu_user_ns", "cpu_system_ns", "cpu_ns_per_op", "ctx_voluntary", "ctx_involuntary", "ctx_per_1k_ops",
        "peak_rss_bytes", "quota_periods", "throttled_periods", "throttled_ns",
        "alloc_bytes_per_op", "alloc_requests_per_op", "alloc_resident_bytes",
        "rounds", "rounds_per_s", "forbidden", "interesting",
        "expected", "expectation",
        // Appended, as every new column is: readers may go by position.
        "worker_cpu_ns_per_op",
        "schedule", "schedule_decisions",
        "exploration_schedules", "exploration_failed", "exploration_complete", "exploration_bound",
    ]

    /// The whole file, header included.
    public static func render(_ report: RunReport) -> String {
        String(decoding: bytes(report), as: UTF8.self)
    }

    /// The whole file as bytes: ``write(_:to:)`` gathered in memory.
    package static func bytes(_ report: RunReport) -> [UInt8] {
        ChunkedOutput.collecting { write(report, to: $0) }
    }

    /// Appends the whole file to `out`, a row at a time. The `skipped`
    /// records of a stopped run's unstarted trials (thousands, alike but for
    /// id, repetition and seed) are spliced from one row of their kind
    /// (``RecordSplicer``): a stopped run must write its files within
    /// moments of the signal.
    package static func write(_ report: RunReport, to out: ChunkedOutput) {
        out.append(columns.joined(separator: ",") + "\n")
        var splicer = RecordSplicer(render: { Array(row($0).utf8) }, plain: { escape($0) == $0 })
        for r in report.trials {
            if !splicer.append(r, to: out) { out.append(row(r)) }
            out.append(byte: UInt8(ascii: "\n"))
        }
    }

    /// One trial's row, without its line end.
    static func row(_ r: TrialResult) -> String {
        let m = r.measurement, l = m?.latency, t = r.trial
        let cells: [String] = [
            t.id, t.plan, t.experiment, t.workload, t.parameters.compactDescription, t.strategy,
            String(t.threads), String(t.repetition), String(t.seed),
            t.fuzz.profile.rawValue, r.outcome.rawValue, String(t.warmupNanoseconds),
            m.map { String($0.elapsedNanoseconds) } ?? "", m.map { String($0.totalOps) } ?? "",
            m.map { String(Int($0.opsPerSecond.rounded())) } ?? "",
            l.map { String($0.count) } ?? "", l.map { String($0.minNanoseconds) } ?? "",
            l.map { String(Int($0.meanNanoseconds.rounded())) } ?? "",
            l.map { String($0.p50Nanoseconds) } ?? "", l.map { String($0.p90Nanoseconds) } ?? "", l.map { String($0.p99Nanoseconds) } ?? "",
            l.map { String($0.p999Nanoseconds) } ?? "", l.map { String($0.p9999Nanoseconds) } ?? "", l.map { String($0.maxNanoseconds) } ?? "",
            m == nil && r.violations.count == 0 ? "" : String(r.violations.count),
            r.violations.samples.first?.summaryLine ?? "",
            r.failure?.message ?? "",
            // How it was measured: the allocator, the clock `auto` resolved
            // to and the sampling interval actually used (both empty when
            // nothing was measured).
            t.allocator.rawValue, m?.timing?.clock ?? "", m?.timing.map { String($0.sampleEvery) } ?? "",
        ] + details(m) + scenario(r) + [
            // The plan's `expect` (`violated`, `deadlock;crashed`; empty: must
            // pass) and how the trial stands against it (passed, caught,
            // missed, unexpected, skipped).
            t.expect.map { $0.map(\.rawValue).joined(separator: ";") } ?? "", r.expectation.rawValue,
            // The worker threads' own CPU time per operation (empty for task workers).
            m?.resources?.workerCpuNsPerOp.map(number) ?? "",
            // Who scheduled the workers (the trial's mode when its record
            // has no schedule: it did not run, or died first), and a
            // controlled trial's decisions (empty when free).
            (r.schedule?.mode ?? t.schedule).rawValue, r.schedule?.decisions.map(String.init) ?? "",
            // An explored trial's answer (all four empty when it was not explored).
            r.exploration.map { String($0.schedules) } ?? "", r.exploration.map { String($0.failed) } ?? "",
            r.exploration.map { String($0.complete) } ?? "", r.exploration.map { String($0.bound) } ?? "",
        ]
        return cells.map(escape).joined(separator: ",")
    }

    /// The columns after `sample_every`: acquire-wait and response-time
    /// percentiles, pacing, stalls, fairness, resources and the allocator's
    /// counts, each empty where the trial has no such figure.
    private static func details(_ m: TrialMeasurement?) -> [String] {
        func int(_ x: Int?) -> String { x.map(String.init) ?? "" }
        func real(_ x: Double?) -> String { x.map(number) ?? "" }
        func whole(_ x: Double?) -> String { x.map { number($0.rounded()) } ?? "" }
        func percentiles(_ l: LatencySummary?) -> [String] {
            [l?.p50Nanoseconds, l?.p99Nanoseconds, l?.p999Nanoseconds, l?.maxNanoseconds].map { $0.map(String.init) ?? "" }
        }
        let pacing = m?.pacing, fairness = m?.fairness, usage = m?.resources, allocator = m?.allocator
        return percentiles(m?.acquireLatency) + percentiles(m?.responseLatency) + [
            whole(pacing?.targetOpsPerSecond), whole(pacing?.achievedOpsPerSecond),
            int(pacing?.maxLagNs), pacing.map { String($0.keptUp) } ?? "",
            int(m?.longestGapNanoseconds?.max()),
            real(fairness?.coefficientOfVariation), real(fairness?.jainIndex), int(fairness?.starvedThread),
            int(usage?.userCpuNs), int(usage?.systemCpuNs), real(usage?.cpuNsPerOp),
            int(usage?.voluntaryContextSwitches), int(usage?.involuntaryContextSwitches), real(usage?.contextSwitchesPer1kOps),
            int(usage?.peakRSSBytes), int(usage?.quotaPeriods), int(usage?.throttledPeriods), int(usage?.throttledNs),
            real(allocator?.bytesPerOp), real(allocator?.allocationsPerOp), int(allocator?.residentBytes),
        ]
    }

    /// A scenario trial's rounds, their rate, and how many rounds showed a
    /// forbidden and an interesting outcome; empty for a workload's trial.
    private static func scenario(_ r: TrialResult) -> [String] {
        guard let rounds = r.rounds, let outcomes = r.outcomes else { return ["", "", "", ""] }
        let count = { (grade: String) in String(outcomes.filter { $0.grade == grade }.reduce(0) { $0 + $1.count }) }
        return [String(rounds), r.measurement?.roundsPerSecond.map { number($0.rounded()) } ?? "", count("forbidden"), count("interesting")]
    }

    /// Six significant digits; whole numbers from 100000 up, where `%g`
    /// would switch to an exponent (up to where an integer ends). Empty for
    /// a value that is not finite.
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return "" }
        return abs(x) >= 1e5 && abs(x) < 9e18 ? String(Int(x.rounded())) : String(format: "%.6g", x)
    }

    /// RFC 4180 quoting. The bytes are scanned, not the characters: the four
    /// that need quoting are ASCII, and a file of 10,000 rows (an interrupted
    /// large run) must be written within moments of the signal.
    static func escape(_ cell: String) -> String {
        guard cell.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
        else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
