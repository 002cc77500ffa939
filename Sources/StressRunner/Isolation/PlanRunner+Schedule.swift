import StressCore

/// What a run's schedule overrides mean for its trials: sharding the
/// schedule space, the timeouts control needs, and what control refuses.
extension PlanRunner {
    /// Whether `--shard` splits the schedule space of each trial rather
    /// than the matrix: when it is given with `--explore`, or when every
    /// trial of `matrix` explores by its plan.
    package func schedulesSharded(_ matrix: [TrialSpec]) -> Bool {
        guard options.shard != nil, options.forcedSchedule == nil else { return false }
        return options.exploration != nil || (!matrix.isEmpty && matrix.allSatisfy { $0.exploration != nil })
    }

    /// The timeout controlled trial `s` needs at least (see
    /// ``TrialMatrix/automaticTimeout(_:)``); nil for a free trial, and for
    /// a controlled one by count that explores nothing (its own timeout,
    /// two minutes and its shrink bound, covers it).
    static func controlledTimeout(_ s: TrialSpec) -> UInt64? {
        guard s.schedule == .controlled else { return nil }
        if let exploration = s.exploration {
            return TrialMatrix.exploredTimeout(budgetNs: exploration.budgetNs, shrinkNs: s.shrinkBudgetNs)
        }
        guard s.durationNanoseconds != nil else { return nil }
        return TrialMatrix.controlledTimeout(maxDecisions: s.maxDecisions, shrinkNs: s.shrinkBudgetNs)
    }

    /// Why the schedule the options impose (`--schedule controlled`, a
    /// replayed schedule) cannot run one of `trials`; nil when they impose
    /// none or it can run them all. The plan loader refuses a plan's own
    /// `schedule: controlled` where it cannot work; this catches the override.
    package func scheduleProblem(_ trials: [TrialSpec]) -> String? {
        guard options.schedule == .controlled || options.forcedSchedule != nil || options.exploration != nil else { return nil }
        let refused = trials.compactMap { t in ControlledScheduleLimits.problem(of: t, registry: registry).map { (t.id, $0) } }
        guard let (id, why) = refused.first else { return nil }
        let others = refused.count > 1 ? " (and \(refused.count - 1) more of the \(trials.count) selected trials)" : ""
        let asked = options.forcedSchedule != nil ? "a recorded schedule (--schedule) makes a controlled trial, which"
            : options.schedule == .controlled ? "--schedule controlled" : "--explore makes a controlled trial, which"
        let option = options.schedule == .controlled || options.forcedSchedule != nil ? "--schedule" : "--explore"
        return "\(asked) cannot run trial \(id)\(others): \(why); select the trials it can run with --only, "
            + "or leave \(option) out"
    }
}
