import StressCore

/// How one cell of a new run compares with the same cell of a baseline run.
package enum ComparisonVerdict: String, Sendable, Codable, CaseIterable {
    /// Significantly better, by more than the tolerance.
    case improved
    /// The whole confidence interval lies within the tolerance.
    case unchanged
    /// Significantly worse, by more than the tolerance: fails the gate.
    case regressed
    /// Too few samples or too noisy to tell.
    case inconclusive
    /// The baseline has the cell but measured it differently (another window,
    /// warm-up, load, clock, sampling or fuzz tuning): not compared.
    case notComparable = "not-comparable"
}

/// The comparison of one cell.
package struct CellComparison: Sendable, Codable, Equatable {
    /// The cell.
    public var cell: CellKey
    /// The baseline cell it was matched with, when its key differs (the
    /// experiment was renamed); nil when it is the same or there is none.
    public var baselineCell: CellKey?
    /// One sample of the metric per repetition, baseline and new.
    public var baselineSamples: [Double]
    public var newSamples: [Double]
    /// median(new) / median(baseline); nil when a side has no samples.
    public var ratio: Double?
    /// The bootstrap confidence interval of the ratio.
    public var ratioLow: Double?
    public var ratioHigh: Double?
    /// The two-sided Mann-Whitney p-value of this cell alone.
    public var pValue: Double?
    /// The p-value after the Holm–Bonferroni correction over every cell of
    /// the comparison that was tested; the verdict uses this one.
    public var pValueAdjusted: Double?
    /// The smallest step the metric can move by at this cell's value (clock
    /// step or histogram bucket, ns); nil for figures not read off a histogram.
    public var resolution: Double?
    /// The verdict.
    public var verdict: ComparisonVerdict
    /// Why, in one sentence.
    public var reason: String
}

/// A whole comparison: settings, every matched cell, and the cells only one side has.
package struct ComparisonReport: Sendable, Codable, Equatable {
    /// The settings used.
    public var settings: ComparisonSettings
    /// The baseline file, when it came from one.
    public var baselineFile: String?
    /// Every cell of the new run, in its order.
    public var cells: [CellComparison]
    /// Cells the baseline has and the new run does not (not run, or its
    /// workload, parameters, strategy, threads, fuzz profile or allocator changed).
    public var onlyInBaseline: [CellKey]
    /// Cells of the new run the baseline has no cell for (new strategies, say);
    /// they are in ``cells`` as `inconclusive` too. Nil in files written before
    /// it was recorded.
    public var onlyInNew: [CellKey]?
    /// How the environment the baseline was measured in differs from this
    /// run's (``EnvironmentInfo/differences(from:)``); nil when they agree or
    /// were not compared. It changes no verdict: it tells a reader that a
    /// change may come from the machine or the build rather than the code.
    public var environmentDifferences: [String]?

    /// Whether any cell regressed.
    public var hasRegression: Bool { cells.contains { $0.verdict == .regressed } }

    /// Cells with a baseline cell measured the same way: the ones the gate
    /// could judge.
    public var comparedCells: Int {
        let unmatched = Set(onlyInNew ?? [])
        return cells.filter { $0.verdict != .notComparable && !unmatched.contains($0.cell) }.count
    }

    /// Why this comparison cannot vouch for the run, or nil. Always when no
    /// cell had a comparable baseline cell (the baseline has nothing in common
    /// with the run: another plan, or every setting changed); and, unless
    /// ``ComparisonSettings/allowPartial``, when baseline cells are missing
    /// from the run or were measured differently. Either gives exit code 2:
    /// the gate was asked a question it could not answer, which is not a pass.
    public var coverageProblem: String? {
        let differently = cells.filter { $0.verdict == .notComparable }.count
        var parts: [String] = []
        if !onlyInBaseline.isEmpty { parts.append("\(onlyInBaseline.count) baseline cell(s) missing from this run") }
        if differently > 0 { parts.append("\(differently) measured differently (not-comparable)") }
        if comparedCells == 0 {
            return "no cell of this run could be compared with the baseline (\(cells.count) cell(s) here"
                + (parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")) + "): is it a baseline of this plan, run with the same settings?"
        }
        guard !settings.allowPartial, !parts.isEmpty else { return nil }
        return parts.joined(separator: " and ") + "; only \(comparedCells) cell(s) were compared. "
            + "Pass --allow-partial to accept a partial comparison"
    }

    /// One sentence on ``environmentDifferences`` for the reports, or nil.
    public var environmentNote: String? {
        guard let differences = environmentDifferences, !differences.isEmpty else { return nil }
        return "the baseline was measured in another environment (" + differences.joined(separator: "; ")
            + "): a change may come from that rather than from the code"
    }

    /// How many cells took part in the rank tests (the Holm family).
    public var testedCells: Int { cells.filter { $0.pValueAdjusted != nil }.count }

    /// One line on how `c` was computed, for the reports.
    static func method(_ c: ComparisonReport) -> String {
        let s = c.settings
        return "\(s.metric.rawValue), median new/baseline with a \(Formatting.percent(s.confidence)) bootstrap interval; "
            + "two-sided Mann-Whitney U (exact for small samples), p adj Holm-corrected over \(c.testedCells) cell(s); "
            + "tolerance ±\(Formatting.percent(s.tolerance)); changes within the metric's resolution are unchanged"
    }
}

/// Compares two runs cell by cell.
///
/// Per cell: one sample per repetition on each side; the ratio of the medians
/// with a seeded percentile-bootstrap interval; a two-sided Mann-Whitney U test
/// (exact for small samples, ties included), whose p-values are corrected for
/// the number of cells compared (Holm–Bonferroni). A change of the medians no
/// bigger than the metric's resolution (see ``MetricResolution``) is
/// `unchanged`. Otherwise `regressed` needs both a significant corrected p
/// (below 1 − confidence) and the whole interval beyond the tolerance on the
/// worse side; `improved` the same on the better side; `unchanged` an interval
/// entirely within the tolerance; anything else (or fewer than
/// ``ComparisonSettings/minimumSamples`` a side) is `inconclusive`. Only
/// `regressed` fails the gate.
package enum BaselineComparer {
    /// Compares `new` with `baseline`.
    public static func compare(
        baseline: [TrialResult], new: [TrialResult], settings: ComparisonSettings, baselineFile: String? = nil
    ) -> ComparisonReport {
        let matching = CellMatching(baseline: Cell.group(baseline), new: Cell.group(new))
        var cells = matching.matches.map { measure($0, settings) }
        // The family is every cell that got a p-value: testing 33 cells at 5%
        // each would call one of them a regression in most comparisons of a
        // build with itself.
        let family = Statistics.holmAdjust(&cells, \.pValue, into: \.pValueAdjusted)
        for i in cells.indices where cells[i].reason.isEmpty {
            (cells[i].verdict, cells[i].reason) = classify(cells[i], family: family, settings)
        }
        return ComparisonReport(settings: settings, baselineFile: baselineFile, cells: cells,
                                onlyInBaseline: matching.unmatchedBaseline.map(\.key),
                                onlyInNew: matching.matches.filter { $0.baseline == nil }.map(\.new.key))
    }

    /// The ratio, interval, p-value and resolution of one matched cell. The
    /// verdict is left to ``classify(_:family:_:)`` unless the cell cannot be
    /// judged at all, in which case `reason` already says why.
    static func measure(_ match: CellMatch, _ s: ComparisonSettings) -> CellComparison {
        let new = match.new
        let a = match.baseline?.samples(s.metric) ?? [], b = new.samples(s.metric)
        var c = CellComparison(cell: new.key, baselineCell: match.baseline.flatMap { $0.key == new.key ? nil : $0.key },
                               baselineSamples: a, newSamples: b, ratio: nil, ratioLow: nil, ratioHigh: nil,
                               pValue: nil, pValueAdjusted: nil, resolution: nil, verdict: .inconclusive, reason: "")
        guard let base = match.baseline else {
            c.reason = "no matching cell in the baseline"
            return c
        }
        guard match.differences.isEmpty else {
            c.verdict = .notComparable
            c.reason = "measured differently: " + match.differences.joined(separator: "; ")
            return c
        }
        guard let ma = Statistics.median(a), let mb = Statistics.median(b), ma > 0 else {
            c.reason = "no \(s.metric.rawValue) samples on the \(a.isEmpty ? "baseline" : "new") side"
            return c
        }
        c.ratio = mb / ma
        let at = Swift.max(ma, mb)
        c.resolution = [MetricResolution.of(s.metric, at: at, in: base), MetricResolution.of(s.metric, at: at, in: new)]
            .compactMap { $0 }.max()
        c.pValue = Statistics.mannWhitney(a, b).pValue
        if let ci = Statistics.bootstrapRatioOfMedians(a, b, confidence: s.confidence, resamples: s.resamples, seed: seed(new.key)) {
            c.ratioLow = ci.low
            c.ratioHigh = ci.high
        }
        return c
    }

    /// The bootstrap seed of a cell. It depends only on the cell, so the same
    /// two files always give the same interval.
    static func seed(_ key: CellKey) -> UInt64 {
        SplitMix64.hash(key.description + "|" + key.parameters.compactDescription)
    }

    /// The verdict for a cell whose ratio, interval and p-values are known;
    /// `family` is how many cells the correction covered.
    static func classify(_ c: CellComparison, family: Int, _ s: ComparisonSettings) -> (ComparisonVerdict, String) {
        guard let lo = c.ratioLow, let hi = c.ratioHigh, let p = c.pValue, let ratio = c.ratio else {
            return (.inconclusive, "the ratio has no interval (a sample is zero)")
        }
        let n = c.baselineSamples.count, m = c.newSamples.count
        if n < s.minimumSamples || m < s.minimumSamples {
            return (.inconclusive, "too few samples (\(n) baseline, \(m) new; the gate needs \(s.minimumSamples) a side: set repetitions)")
        }
        let medianA = Statistics.median(c.baselineSamples) ?? 0
        let change = abs(ratio - 1) * medianA
        if let step = c.resolution, change < MetricResolution.stepsThatAreNoise * step {
            let what = change == 0 ? "no change" : "a change of \(s.metric.format(change))"
            return (.unchanged, "\(what), within one step of \(s.metric.rawValue)'s resolution here (\(s.metric.format(step)): clock step or histogram bucket)")
        }
        return ToleranceVerdict.classify(
            low: lo, high: hi, pValue: p, adjusted: c.pValueAdjusted ?? p, family: family, tolerance: s.tolerance, alpha: s.alpha,
            higherIsBetter: s.metric.higherIsBetter, test: "rank test"
        ) {
            guard Statistics.smallestPValue(n, m) * Double(family) >= s.alpha else { return nil }
            return "with \(Swift.min(n, m)) repetitions a side no cell of \(family) can be significant: run at least \(s.samplesNeeded(forCells: family))"
        }
    }
}
