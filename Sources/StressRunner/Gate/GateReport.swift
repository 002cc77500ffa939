import StressCore

/// The performance part of a run's verdict: every threshold check and, with a
/// baseline, every cell comparison. Stored in the results file under `gate`.
package struct GateReport: Sendable, Codable, Equatable {
    /// Every threshold on every cell.
    public var thresholds: [ThresholdCheck]
    /// The baseline comparison, when there was a baseline.
    public var comparison: ComparisonReport?

    /// A report.
    public init(thresholds: [ThresholdCheck], comparison: ComparisonReport?) {
        self.thresholds = thresholds
        self.comparison = comparison
    }

    /// The threshold checks that failed.
    public var failedThresholds: [ThresholdCheck] { thresholds.filter { $0.status == .failed } }

    /// The cells that regressed against the baseline.
    public var regressions: [CellComparison] { comparison?.cells.filter { $0.verdict == .regressed } ?? [] }

    /// True when a threshold failed or a cell regressed: exit code 4 unless a
    /// correctness failure outranks it.
    public var failed: Bool { !failedThresholds.isEmpty || !regressions.isEmpty }

    /// Why the baseline comparison could not vouch for the run (exit code 2),
    /// or nil; see ``ComparisonReport/coverageProblem``.
    public var coverageProblem: String? { comparison?.coverageProblem }

    /// Evaluates `policy`'s thresholds on `results` and, when `baseline` is
    /// given, compares the two cell by cell with `policy.comparison`'s settings,
    /// and notes how `environment` (the new run's) and the environment of each
    /// trial in `results` differ from the baseline's and its trials'.
    public static func evaluate(
        _ results: [TrialResult], policy: GatePolicy, baseline: RunReport? = nil, baselineFile: String? = nil,
        environment: EnvironmentInfo? = nil
    ) -> GateReport {
        let checks = ThresholdEvaluator.evaluate(results, policy: policy, baseline: baseline?.trials)
        let comparison = baseline.map { base in
            var c = BaselineComparer.compare(baseline: base.trials, new: results, settings: policy.comparison, baselineFile: baselineFile)
            // A merged file's trials may come from several machines, on
            // either side: every distinct pair is compared.
            let theirs = distinct([base.environment] + base.trials.map(\.environment))
            let ours = distinct((environment.map { [$0] } ?? []) + results.map(\.environment))
            var differences: [String] = []
            for there in theirs {
                for here in ours {
                    for d in here.differences(from: there) where !differences.contains(d) { differences.append(d) }
                }
            }
            c.environmentDifferences = differences.isEmpty ? nil : differences
            return c
        }
        return GateReport(thresholds: checks, comparison: comparison)
    }

    /// `environments` without repeats, in order.
    private static func distinct(_ environments: [EnvironmentInfo]) -> [EnvironmentInfo] {
        environments.reduce(into: []) { kept, e in if !kept.contains(e) { kept.append(e) } }
    }
}
