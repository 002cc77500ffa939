import StressCore

/// What is worth a warning about a valid plan on this machine: nothing wrong
/// with it, but a run a user may not have meant. Plan errors are the same on
/// every machine; these depend on the machine, so `validate` and `run` print
/// them and go on.
package enum PlanWarnings {
    /// The warnings for `plan` on a machine whose processes may use
    /// `usableCores` cores (nil when unknown: no per-core warning).
    public static func warnings(_ plan: Plan, usableCores: Int?) -> [String] {
        var out: [String] = []
        if let cores = usableCores, cores > 0 {
            for e in plan.experiments {
                guard let most = e.threads.max(), most > PlanDefaults.threadsPerCoreWarning * cores else { continue }
                out.append("warning: experiment '\(e.name)' runs up to \(most) workers on this machine's \(cores) usable core(s), "
                           + "\(most / cores) per core: its figures will show the OS scheduler as much as the code "
                           + "(more than \(PlanDefaults.threadsPerCoreWarning) per core is unusual)")
            }
        }
        let planned = TrialMatrix.plannedSeconds(plan)
        if planned > PlanDefaults.plannedSecondsWarning {
            out.append("warning: the plan would run for about \(Quantities.format(nanoseconds: UInt64(Swift.min(planned, 1e10) * 1e9))) "
                       + "(\(TrialMatrix.trialCount(plan)) trials; their warm-ups and windows added up)")
        }
        return out
    }

    /// A warning for each experiment that asks for a hunt (its `hunt`, or the
    /// run's `--hunt`, `runHuntNs`) when none of its `selected` trials runs
    /// free: a hunt turns a free-running failure into a controlled one, so a
    /// controlled trial (`schedule: controlled`, `explore`, `--schedule
    /// controlled`) is never hunted. Its failure already has a schedule, a
    /// trace and a shrink of its own, so the hunt is not needed; but a user
    /// who asked for one is told rather than left to wonder where it went.
    package static func huntWarnings(_ plan: Plan, selected: [TrialSpec], runHuntNs: UInt64?) -> [String] {
        plan.experiments.compactMap { e in
            guard (runHuntNs ?? e.huntNs) > 0 else { return nil }
            let trials = selected.filter { $0.experiment == e.name }
            guard !trials.isEmpty, trials.allSatisfy({ $0.schedule == .controlled }) else { return nil }
            let asked = runHuntNs != nil ? "--hunt" : "its `hunt`"
            return "warning: experiment '\(e.name)' runs controlled, so \(asked) has no effect on it: a hunt reruns a free-running "
                + "failure under control, and a controlled failure already records its schedule and trace (docs/traces.md)"
        }
    }
}
