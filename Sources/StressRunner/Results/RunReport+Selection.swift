import StressCore

extension RunReport {
    /// Whether `--only` selects the trial `id`: no selection selects every
    /// trial; else an id equal to one of `only`, or one that starts with it
    /// followed by `/` (`bank/mutex` selects `bank/mutex/t4/r0`).
    package static func isSelected(_ id: String, by only: [String]) -> Bool {
        only.isEmpty || only.contains { id == $0 || id.hasPrefix($0 + "/") }
    }

    /// The trials of this report that `--only` selects. A run narrowed with
    /// `--only` (the rerun command of one cell, say) is compared with the
    /// same part of its baseline: the baseline's other cells are not missing
    /// from the run, they were not asked for.
    package func selecting(only: [String]) -> RunReport {
        var part = self
        part.trials = trials.filter { Self.isSelected($0.trial.id, by: only) }
        return part
    }
}
