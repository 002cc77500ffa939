import StressCore

/// The baseline cell a cell of the new run is compared with, if any.
package struct CellMatch: Sendable {
    /// The cell of the new run.
    public var new: Cell
    /// Its counterpart in the baseline: same workload, parameters, strategy,
    /// threads, fuzz profile and allocator; nil when the baseline has none.
    public var baseline: Cell?
    /// How the two were measured differently (``MeasurementSettings``); empty
    /// when they measure the same thing.
    public var differences: [String]

    /// True when there is a baseline cell measured the same way.
    public var isComparable: Bool { baseline != nil && differences.isEmpty }
}

/// Pairs the cells of a new run with those of a baseline run.
///
/// Cells are matched on ``CellKey/matchKey`` (not the experiment's name, so a
/// renamed experiment still matches), each baseline cell at most once, in
/// passes: the same experiment name measured the same way, then any name
/// measured the same way, then measured differently (same name first), which
/// is reported as not comparable rather than compared. The experiment name
/// only breaks ties, as when one plan runs one workload in two experiments
/// with different windows.
package struct CellMatching: Sendable {
    /// One entry per cell of the new run, in its order.
    public var matches: [CellMatch]
    /// Baseline cells no cell of the new run matched (not run, or renamed
    /// beyond recognition), in the baseline's order.
    public var unmatchedBaseline: [Cell]

    /// Matches `new` against `baseline`.
    public init(baseline: [Cell], new: [Cell]) {
        var candidates: [CellKey: [Int]] = [:]
        for (i, cell) in baseline.enumerated() { candidates[cell.key.matchKey, default: []].append(i) }
        let baseSettings = baseline.map(\.settings)
        var used = Set<Int>()
        var found = [Int?](repeating: nil, count: new.count)
        let passes: [(sameName: Bool, sameSettings: Bool)] = [(true, true), (false, true), (true, false), (false, false)]
        for pass in passes {
            for (j, cell) in new.enumerated() where found[j] == nil {
                let settings = cell.settings
                let pick = candidates[cell.key.matchKey, default: []].first { i in
                    !used.contains(i)
                        && (!pass.sameName || baseline[i].key.experiment == cell.key.experiment)
                        && (!pass.sameSettings || baseSettings[i] == settings)
                }
                if let pick {
                    used.insert(pick)
                    found[j] = pick
                }
            }
        }
        matches = new.indices.map { j in
            guard let i = found[j] else { return CellMatch(new: new[j], baseline: nil, differences: []) }
            var differences: [String] = []
            if let here = new[j].settings, let there = baseSettings[i] { differences = here.differences(from: there) }
            return CellMatch(new: new[j], baseline: baseline[i], differences: differences)
        }
        unmatchedBaseline = baseline.indices.filter { !used.contains($0) }.map { baseline[$0] }
    }
}
