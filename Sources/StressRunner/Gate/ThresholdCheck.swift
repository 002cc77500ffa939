import StressCore

/// The verdict of one threshold on one cell.
package struct ThresholdCheck: Sendable, Codable, Equatable {
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
    /// For a baseline bound: median(new) / median(baseline) of the per-repetition
    /// samples, and its bootstrap interval, which decides the verdict.
    public var ratio: Double?
    public var ratioLow: Double?
    public var ratioHigh: Double?
    /// One line for people: `p99 = 1.2µs, limit 50µs: passed`.
    public var message: String
}

/// What a baseline run has to say about one cell, for a threshold relative to it.
package enum BaselineLookup: Sendable {
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
package enum ThresholdEvaluator {
    /// Every threshold of `policy` on every cell of `results`. `baseline`, when
    /// given, supplies the values baseline bounds scale; its cells are matched
    /// as a baseline comparison matches them (``CellMatching``), and the
    /// interval of a baseline bound has `policy.comparison`'s confidence.
    public static func evaluate(_ results: [TrialResult], policy: GatePolicy, baseline: [TrialResult]? = nil) -> [ThresholdCheck] {
        let cells = Cell.group(results)
        let lookups = baseline.map { CellMatching(baseline: Cell.group($0), new: cells).matches.map(BaselineLookup.init) }
        var checks: [ThresholdCheck] = []
        for (i, cell) in cells.enumerated() {
            for t in policy.thresholds(forExperiment: cell.key.experiment) {
                checks.append(check(t, cell: cell, baseline: lookups?[i] ?? .noBaseline, settings: policy.comparison))
            }
        }
        return checks
    }

    /// One threshold on one cell.
    ///
    /// An absolute bound is held against the cell's value. A bound relative to
    /// a baseline (`ops_per_s >= 0.9 * baseline`) is held against the ratio of
    /// the medians of the two sides' per-repetition samples with its bootstrap
    /// interval, as the baseline comparison computes it, and fails only when
    /// the whole interval fails it: two single medians of one build differ by
    /// more than 10% often enough on a shared machine to fail a plain check.
    /// A change within the metric's resolution counts as no change.
    public static func check(_ t: Threshold, cell: Cell, baseline: BaselineLookup = .noBaseline,
                             settings: ComparisonSettings = ComparisonSettings()) -> ThresholdCheck {
        let name = t.metric.rawValue
        func result(_ status: ThresholdCheck.Status, _ observed: Double?, _ limit: Double?, _ message: String) -> ThresholdCheck {
            ThresholdCheck(cell: cell.key, threshold: t, status: status, observed: observed, limit: limit, message: message)
        }
        // A metric with no samples fails: a gate that passes because nothing was
        // measured would pass a build whose every trial crashed.
        guard let observed = cell.value(t.metric) else {
            return result(.failed, nil, nil, "\(t.expression): failed: no \(name) samples (no repetition of the cell ran to the end)")
        }
        switch t.bound {
        case .value(let limit):
            let held = t.comparison.holds(observed, limit)
            let text = "\(t.expression): \(name) = \(t.metric.format(observed)), limit \(t.comparison.rawValue) \(t.metric.format(limit)): \(held ? "passed" : "failed")"
            return result(held ? .passed : .failed, observed, limit, text)
        case .baseline(let factor):
            switch baseline {
            case .noBaseline:
                return result(.notEvaluated, observed, nil, "\(t.expression): not evaluated: no baseline given (--baseline)")
            case .missing:
                return result(.notEvaluated, observed, nil, "\(t.expression): not evaluated: the baseline has no cell \(cell.key)")
            case .notComparable(let differences):
                return result(.notEvaluated, observed, nil,
                              "\(t.expression): not evaluated: the baseline measured \(cell.key) differently (\(differences.joined(separator: "; ")))")
            case .found(let base):
                return relative(t, factor: factor, cell: cell, base: base, settings: settings)
            }
        }
    }

    /// A bound relative to the baseline cell `base`.
    private static func relative(_ t: Threshold, factor: Double, cell: Cell, base: Cell, settings: ComparisonSettings) -> ThresholdCheck {
        let name = t.metric.rawValue
        let a = base.samples(t.metric), b = cell.samples(t.metric)
        var check = ThresholdCheck(cell: cell.key, threshold: t, status: .failed, observed: Statistics.median(b), limit: nil, message: "")
        guard let ma = Statistics.median(a), ma > 0, let mb = Statistics.median(b) else {
            check.message = "\(t.expression): failed: the baseline cell has no \(name) samples"
            return check
        }
        let ratio = mb / ma
        var interval = Statistics.bootstrapRatioOfMedians(a, b, confidence: settings.confidence, resamples: settings.resamples,
                                                          seed: BaselineComparer.seed(cell.key)).map { $0.low...$0.high } ?? ratio...ratio
        var note = ""
        if let step = [MetricResolution.of(t.metric, at: max(ma, mb), in: base), MetricResolution.of(t.metric, at: max(ma, mb), in: cell)]
            .compactMap({ $0 }).max(), abs(mb - ma) < MetricResolution.stepsThatAreNoise * step {
            // Within the resolution the data cannot rule out "no change".
            interval = min(interval.lowerBound, 1)...max(interval.upperBound, 1)
            note = ", within \(name)'s resolution (\(t.metric.format(step)))"
        }
        let held = t.comparison.canHold(somewhereIn: interval, factor)
        check.status = held ? .passed : .failed
        check.limit = factor * ma
        check.ratio = ratio
        check.ratioLow = interval.lowerBound
        check.ratioHigh = interval.upperBound
        let verdict = held ? "passed" : "failed: the whole interval is \(t.comparison.rawValue == "==" ? "away from" : "beyond") \(Formatting.digits(factor))"
        check.message = "\(t.expression): \(name) = \(t.metric.format(mb)), baseline \(t.metric.format(ma)) (medians of \(b.count) and \(a.count) repetitions): "
            + "ratio \(Formatting.ratio(ratio, interval.lowerBound, interval.upperBound)) (\(Formatting.percent(settings.confidence)) interval\(note)): \(verdict)"
        return check
    }
}
