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
}
