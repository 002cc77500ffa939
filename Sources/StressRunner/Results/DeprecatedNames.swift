// Public names of this module that were renamed, kept for one release (see
// StressCore's DeprecatedNames.swift for the policy).

import StressCore

extension TrialResult {
    /// The former name of ``makeRerunCommand(planFile:)``, renamed so that it
    /// is not mistaken for the record's own ``rerunCommand`` (the exact
    /// command of the run that made it).
    @available(*, deprecated, renamed: "makeRerunCommand(planFile:)")
    public func rerunCommand(planFile: String) -> String { makeRerunCommand(planFile: planFile) }
}
