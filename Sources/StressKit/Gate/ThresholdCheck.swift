/// The verdict of one threshold on one cell.
public struct ThresholdCheck: Sendable, Codable, Equatable {
    /// Held, did not hold, or could not be judged (a baseline bound without a baseline).
    public enum Status: String, Sendable, Codable {
        case passed, failed
        /// Only for bounds relative to a baseline when no baseline was given, or
        /// the baseline has no such cell: reported, never failing the gate.
        case notEvaluated = "not-evaluated"
    }

    /// The cell.
    public var cell: CellKey
    /// The threshold.
    public var threshold: Threshold
    /// The verdict.
    public var status: Status
    /// The cell's value of the metric, when it had one.
    public var observed: Double?
    /// The bound it was held against (for a baseline bound: factor × the
    /// baseline's value), in the metric's base unit.
    public var limit: Double?
    /// One line for people: `p99 = 1.2µs, limit 50µs: passed`.
    public var message: String
}

/// Evaluates thresholds per cell.
public enum ThresholdEvaluator {
    /// Every threshold of `policy` on every cell of `results`. `baseline`, when
    /// given, supplies the values baseline bounds scale.
    public static func evaluate(_ results: [TrialResult], policy: GatePolicy, baseline: [TrialResult]? = nil) -> [ThresholdCheck] {
        let baselineCells = baseline.map { Dictionary(Cell.group($0).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a }) }
        var checks: [ThresholdCheck] = []
        for cell in Cell.group(results) {
            for t in policy.thresholds(forExperiment: cell.key.experiment) {
                checks.append(check(t, cell: cell, baseline: baselineCells.map { $0[cell.key] }))
            }
        }
        return checks
    }

    /// One threshold on one cell. `baseline` is nil when no baseline run was
    /// given, `.some(nil)` when it was but has no such cell.
    public static func check(_ t: Threshold, cell: Cell, baseline: Cell?? = nil) -> ThresholdCheck {
        let name = t.metric.rawValue
        func result(_ status: ThresholdCheck.Status, _ observed: Double?, _ limit: Double?, _ message: String) -> ThresholdCheck {
            ThresholdCheck(cell: cell.key, threshold: t, status: status, observed: observed, limit: limit, message: message)
        }
        // A metric with no samples fails: a gate that passes because nothing was
        // measured would pass a build whose every trial crashed.
        guard let observed = cell.value(t.metric) else {
            return result(.failed, nil, nil, "\(t.expression): failed: no \(name) samples (no repetition of the cell ran to the end)")
        }
        let limit: Double
        switch t.bound {
        case .value(let v): limit = v
        case .baseline(let factor):
            guard let given = baseline else {
                return result(.notEvaluated, observed, nil, "\(t.expression): not evaluated: no baseline given (--baseline)")
            }
            guard let base = given else {
                return result(.notEvaluated, observed, nil, "\(t.expression): not evaluated: the baseline has no cell \(cell.key)")
            }
            guard let b = base.value(t.metric) else {
                return result(.failed, observed, nil, "\(t.expression): failed: the baseline cell has no \(name) samples")
            }
            limit = factor * b
        }
        let held = t.comparison.holds(observed, limit)
        let text = "\(t.expression): \(name) = \(t.metric.format(observed)), limit \(t.comparison.rawValue) \(t.metric.format(limit)): \(held ? "passed" : "failed")"
        return result(held ? .passed : .failed, observed, limit, text)
    }
}
