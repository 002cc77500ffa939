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

/// What a baseline run has to say about one cell, for a threshold relative to it.
public enum BaselineLookup: Sendable {
    /// No baseline run was given.
    case noBaseline
    /// The baseline has no cell like it.
    case missing
    /// The baseline has the cell, measured differently (these differences).
    case notComparable([String])
    /// The baseline's cell.
    case found(Cell)

    /// The lookup for `match`.
    init(_ match: CellMatch) {
        if let base = match.baseline {
            self = match.differences.isEmpty ? .found(base) : .notComparable(match.differences)
        } else {
            self = .missing
        }
    }
}

/// Evaluates thresholds per cell.
public enum ThresholdEvaluator {
    /// Every threshold of `policy` on every cell of `results`. `baseline`, when
    /// given, supplies the values baseline bounds scale; its cells are matched
    /// as a baseline comparison matches them (``CellMatching``).
    public static func evaluate(_ results: [TrialResult], policy: GatePolicy, baseline: [TrialResult]? = nil) -> [ThresholdCheck] {
        let cells = Cell.group(results)
        let lookups = baseline.map { CellMatching(baseline: Cell.group($0), new: cells).matches.map(BaselineLookup.init) }
        var checks: [ThresholdCheck] = []
        for (i, cell) in cells.enumerated() {
            for t in policy.thresholds(forExperiment: cell.key.experiment) {
                checks.append(check(t, cell: cell, baseline: lookups?[i] ?? .noBaseline))
            }
        }
        return checks
    }

    /// One threshold on one cell.
    public static func check(_ t: Threshold, cell: Cell, baseline: BaselineLookup = .noBaseline) -> ThresholdCheck {
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
            let base: Cell
            switch baseline {
            case .noBaseline:
                return result(.notEvaluated, observed, nil, "\(t.expression): not evaluated: no baseline given (--baseline)")
            case .missing:
                return result(.notEvaluated, observed, nil, "\(t.expression): not evaluated: the baseline has no cell \(cell.key)")
            case .notComparable(let differences):
                return result(.notEvaluated, observed, nil,
                              "\(t.expression): not evaluated: the baseline measured \(cell.key) differently (\(differences.joined(separator: "; ")))")
            case .found(let cell): base = cell
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
