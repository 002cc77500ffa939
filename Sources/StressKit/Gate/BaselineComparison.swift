/// How one cell of a new run compares with the same cell of a baseline run.
public enum ComparisonVerdict: String, Sendable, Codable, CaseIterable {
    /// Significantly better, by more than the tolerance.
    case improved
    /// The whole confidence interval lies within the tolerance.
    case unchanged
    /// Significantly worse, by more than the tolerance: fails the gate.
    case regressed
    /// Too few samples or too noisy to tell.
    case inconclusive
}

/// The comparison of one cell.
public struct CellComparison: Sendable, Codable, Equatable {
    /// The cell.
    public var cell: CellKey
    /// One sample of the metric per repetition, baseline and new.
    public var baselineSamples: [Double]
    public var newSamples: [Double]
    /// median(new) / median(baseline); nil when a side has no samples.
    public var ratio: Double?
    /// The bootstrap confidence interval of the ratio.
    public var ratioLow: Double?
    public var ratioHigh: Double?
    /// The two-sided Mann-Whitney p-value.
    public var pValue: Double?
    /// The verdict.
    public var verdict: ComparisonVerdict
    /// Why, in one sentence.
    public var reason: String
}

/// A whole comparison: settings, every matched cell, and the cells only one side has.
public struct ComparisonReport: Sendable, Codable, Equatable {
    /// The settings used.
    public var settings: ComparisonSettings
    /// The baseline file, when it came from one.
    public var baselineFile: String?
    /// Every cell of the new run, in its order.
    public var cells: [CellComparison]
    /// Cells the baseline has and the new run does not (not run, or renamed).
    public var onlyInBaseline: [CellKey]

    /// Whether any cell regressed.
    public var hasRegression: Bool { cells.contains { $0.verdict == .regressed } }
}

/// Compares two runs cell by cell.
///
/// Per cell: one sample per repetition on each side; the ratio of the medians
/// with a seeded percentile-bootstrap interval; a two-sided Mann-Whitney U test.
/// `regressed` needs both a significant rank test (p < 1 − confidence) and the
/// whole interval beyond the tolerance on the worse side; `improved` the same on
/// the better side; `unchanged` an interval entirely within the tolerance;
/// anything else (or fewer than ``ComparisonSettings/minimumSamples`` a side) is
/// `inconclusive`. Only `regressed` fails the gate.
public enum BaselineComparer {
    /// Compares `new` with `baseline`.
    public static func compare(
        baseline: [TrialResult], new: [TrialResult], settings: ComparisonSettings, baselineFile: String? = nil
    ) -> ComparisonReport {
        let baseCells = Cell.group(baseline)
        let byKey = Dictionary(baseCells.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let newCells = Cell.group(new)
        let newKeys = Set(newCells.map(\.key))
        let cells = newCells.map { compare(byKey[$0.key], $0, settings) }
        return ComparisonReport(settings: settings, baselineFile: baselineFile, cells: cells,
                                onlyInBaseline: baseCells.map(\.key).filter { !newKeys.contains($0) })
    }

    /// Compares one cell (`base` nil when the baseline has no such cell).
    public static func compare(_ base: Cell?, _ new: Cell, _ s: ComparisonSettings) -> CellComparison {
        let a = base?.samples(s.metric) ?? [], b = new.samples(s.metric)
        var c = CellComparison(cell: new.key, baselineSamples: a, newSamples: b, ratio: nil, ratioLow: nil, ratioHigh: nil,
                               pValue: nil, verdict: .inconclusive, reason: "")
        guard base != nil else {
            c.reason = "no matching cell in the baseline"
            return c
        }
        guard let ma = Statistics.median(a), let mb = Statistics.median(b), ma > 0 else {
            c.reason = "no \(s.metric.rawValue) samples on the \(a.isEmpty ? "baseline" : "new") side"
            return c
        }
        c.ratio = mb / ma
        let test = Statistics.mannWhitney(a, b)
        c.pValue = test.pValue
        // The seed depends only on the cell, so the same two files always give
        // the same interval.
        let seed = SplitMix64.hash(new.key.description + "|" + new.key.parameters.compactDescription)
        if let ci = Statistics.bootstrapRatioOfMedians(a, b, confidence: s.confidence, resamples: s.resamples, seed: seed) {
            c.ratioLow = ci.low
            c.ratioHigh = ci.high
        }
        (c.verdict, c.reason) = classify(c, samples: (a.count, b.count), s)
        return c
    }

    /// The verdict for a cell whose ratio, interval and p-value are known.
    static func classify(_ c: CellComparison, samples: (Int, Int), _ s: ComparisonSettings) -> (ComparisonVerdict, String) {
        guard let lo = c.ratioLow, let hi = c.ratioHigh, let p = c.pValue else {
            return (.inconclusive, "the ratio has no interval (a sample is zero)")
        }
        let (n, m) = samples
        if n < s.minimumSamples || m < s.minimumSamples {
            return (.inconclusive, "too few samples (\(n) baseline, \(m) new; the gate needs \(s.minimumSamples) a side: set repetitions)")
        }
        let alpha = 1 - s.confidence
        let band = (1 - s.tolerance)...(1 + s.tolerance)
        let tolerance = "±\(Formatting.percent(s.tolerance))"
        // Worse means a lower ratio for throughput, a higher one for latency.
        let worseBeyond = s.metric.higherIsBetter ? hi < band.lowerBound : lo > band.upperBound
        let betterBeyond = s.metric.higherIsBetter ? lo > band.upperBound : hi < band.lowerBound
        let pText = "p = \(Formatting.pValue(p))"
        if worseBeyond || betterBeyond {
            guard p < alpha else {
                return (.inconclusive, "the interval lies beyond \(tolerance) but the rank test is not significant (\(pText) ≥ \(Formatting.pValue(alpha)))")
            }
            return worseBeyond
                ? (.regressed, "worse beyond the \(tolerance) tolerance (\(pText))")
                : (.improved, "better beyond the \(tolerance) tolerance (\(pText))")
        }
        if band.contains(lo) && band.contains(hi) {
            return (.unchanged, "the interval lies within \(tolerance)")
        }
        return (.inconclusive, "the interval reaches beyond \(tolerance) without lying beyond it (too noisy to tell; \(pText))")
    }
}
