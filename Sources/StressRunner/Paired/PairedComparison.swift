import Foundation
import StressCore

/// One pair: the same trial (same spec, same seed) run once by each build,
/// back to back.
package struct TrialPair: Sendable, Codable, Equatable {
    /// The repetition both trials ran (their trial id ends in `/r<repetition>`).
    public var repetition: Int
    /// True when the old build's trial ran first (the order alternates from
    /// one round of pairs to the next).
    public var oldFirst: Bool
    /// The metric in each build's trial; nil when that trial has none (it
    /// did not pass, or measured nothing).
    public var old: Double?
    public var new: Double?

    /// new / old, when both are there.
    public var ratio: Double? {
        guard let old, let new, old > 0, new > 0 else { return nil }
        return new / old
    }
}

/// The paired comparison of one cell.
package struct PairedCellComparison: Sendable, Codable, Equatable {
    /// The cell.
    public var cell: CellKey
    /// Every pair, in the order they ran.
    public var pairs: [TrialPair]
    /// Pairs with a ratio: the ones the statistics use.
    public var completePairs: Int
    /// The medians of each build's figures over the complete pairs.
    public var oldMedian: Double?
    public var newMedian: Double?
    /// The median of the pairs' ratios, new / old.
    public var ratio: Double?
    /// Its percentile-bootstrap interval (the pairs resampled).
    public var ratioLow: Double?
    public var ratioHigh: Double?
    /// The two-sided p-value of the test on the pairs' log-ratios, this cell alone.
    public var pValue: Double?
    /// The p-value after the Holm–Bonferroni correction over every tested
    /// cell of the comparison; the verdict uses this one.
    public var pValueAdjusted: Double?
    /// The smallest step the metric moves by here (quantised metrics only).
    public var resolution: Double?
    /// The verdict: the classes of `compare`.
    public var verdict: ComparisonVerdict
    /// Why, in one sentence.
    public var reason: String
}

/// Judges the pairs of every cell.
///
/// Per cell: the ratio new / old of each complete pair; their median, with a
/// seeded percentile-bootstrap interval; a two-sided signed-rank (or sign)
/// test on their logarithms, Holm-corrected over the cells tested. The
/// verdicts are those of ``BaselineComparer``: `regressed` needs a
/// significant corrected p and the whole interval worse than the tolerance,
/// `improved` the same on the better side, `unchanged` an interval within the
/// tolerance (or, for a quantised metric, a change within its resolution),
/// `not-comparable` when the two builds' trials were measured differently
/// (the clock `auto` chose, say), and `inconclusive` anything else.
package enum PairedComparer {
    /// Compares the trials of the old build with those of the new one, cell
    /// by cell, pairing trials of the same repetition.
    public static func compare(old: [TrialResult], new: [TrialResult], orderOldFirst: [String: Bool] = [:],
                               settings: PairedSettings) -> [PairedCellComparison] {
        let oldCells = Dictionary(Cell.group(old).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        var cells = Cell.group(new).map { newCell in
            measure(old: oldCells[newCell.key] ?? Cell(key: newCell.key, []), new: newCell, orderOldFirst: orderOldFirst, settings)
        }
        // Cells only the old build ran (its trial of a pair was the last to finish before an interrupt).
        for oldCell in Cell.group(old) where !cells.contains(where: { $0.cell == oldCell.key }) {
            cells.append(measure(old: oldCell, new: Cell(key: oldCell.key, []), orderOldFirst: orderOldFirst, settings))
        }
        let family = Statistics.holmAdjust(&cells, \.pValue, into: \.pValueAdjusted)
        for i in cells.indices where cells[i].reason.isEmpty {
            (cells[i].verdict, cells[i].reason) = classify(cells[i], family: family, settings)
        }
        return cells
    }

    /// The pairs, ratio, interval and p-value of one cell; the verdict is
    /// left to ``classify(_:family:_:)`` unless the cell cannot be judged.
    static func measure(old: Cell, new: Cell, orderOldFirst: [String: Bool], _ s: PairedSettings) -> PairedCellComparison {
        let oldByRepetition = Dictionary(old.trials.map { ($0.trial.repetition, $0) }, uniquingKeysWith: { a, _ in a })
        let newByRepetition = Dictionary(new.trials.map { ($0.trial.repetition, $0) }, uniquingKeysWith: { a, _ in a })
        let repetitions = Set(oldByRepetition.keys).union(newByRepetition.keys).sorted()
        let pairs = repetitions.map { r -> TrialPair in
            let o = oldByRepetition[r], n = newByRepetition[r]
            let id = (n ?? o)!.trial.id
            // A figure counts only from a trial that passed: a violated
            // trial's window ended early or did something else.
            return TrialPair(repetition: r, oldFirst: orderOldFirst[id] ?? true,
                             old: o.flatMap { $0.outcome == .passed ? s.metric.sample(of: $0) : nil },
                             new: n.flatMap { $0.outcome == .passed ? s.metric.sample(of: $0) : nil })
        }
        let complete = pairs.filter { $0.ratio != nil }
        var c = PairedCellComparison(cell: new.key, pairs: pairs, completePairs: complete.count,
                                     oldMedian: Statistics.median(complete.compactMap(\.old)),
                                     newMedian: Statistics.median(complete.compactMap(\.new)),
                                     ratio: nil, ratioLow: nil, ratioHigh: nil, pValue: nil, pValueAdjusted: nil,
                                     resolution: nil, verdict: .inconclusive, reason: "")
        if let here = new.settings, let there = old.settings {
            let differences = here.differences(from: there).map { $0.replacingOccurrences(of: "in the baseline", with: "in the old build") }
            if !differences.isEmpty {
                c.verdict = .notComparable
                c.reason = "measured differently by the two builds: " + differences.joined(separator: "; ")
                return c
            }
        }
        guard !complete.isEmpty else {
            c.reason = "no complete pair (\(pairs.count) pair(s) started; a trial that did not pass, or measured no \(s.metric), leaves its pair out)"
            return c
        }
        let ratios = complete.compactMap(\.ratio)
        c.ratio = Statistics.median(ratios)
        c.pValue = s.test.run(ratios.map { log($0) }).pValue
        if let ci = Statistics.bootstrapMedian(ratios, confidence: s.confidence, resamples: s.resamples, seed: BaselineComparer.seed(new.key)) {
            c.ratioLow = ci.low
            c.ratioHigh = ci.high
        }
        if let mo = c.oldMedian, let mn = c.newMedian {
            let at = Swift.max(mo, mn)
            c.resolution = [s.metric.resolution(at: at, in: old), s.metric.resolution(at: at, in: new)].compactMap { $0 }.max()
        }
        return c
    }

    /// The verdict of a measured cell; `family` is how many cells the
    /// correction covered.
    static func classify(_ c: PairedCellComparison, family: Int, _ s: PairedSettings) -> (ComparisonVerdict, String) {
        guard let ratio = c.ratio, let lo = c.ratioLow, let hi = c.ratioHigh, let p = c.pValue else {
            return (.inconclusive, "no ratio could be formed")
        }
        let n = c.completePairs
        if n < s.minimumPairs {
            return (.inconclusive, "too few complete pairs (\(n); a verdict needs \(s.minimumPairs): raise --pairs)")
        }
        if let step = c.resolution, let mo = c.oldMedian, let mn = c.newMedian, abs(mn - mo) < MetricResolution.stepsThatAreNoise * step {
            let change = abs(mn - mo)
            let what = change == 0 ? "no change" : "a change of \(s.metric.format(change))"
            return (.unchanged, "\(what), within one step of \(s.metric)'s resolution here (\(s.metric.format(step))); ns_per_op is not quantised")
        }
        return ToleranceVerdict.classify(
            low: lo, high: hi, pValue: p, adjusted: c.pValueAdjusted ?? p, family: family, tolerance: s.tolerance, alpha: s.alpha,
            higherIsBetter: s.metric.higherIsBetter, test: "test", lead: "median ratio \(String(format: "%.3f", ratio)) over \(n) pairs"
        ) {
            guard Statistics.smallestPairedPValue(n) * Double(family) >= s.alpha else { return nil }
            return "with \(n) pairs no cell of \(family) can be significant: run at least \(s.pairsForAnyVerdict(forCells: family)) (--pairs)"
        }
    }
}
