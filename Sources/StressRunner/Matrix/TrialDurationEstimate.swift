import StressCore

/// How long a trial is expected to take, before it runs: what shard balancing
/// and the progress display's remaining-time estimate work from.
package enum TrialDurationEstimate {
    /// Starting a trial process and reading its record, measured at about 0.1 s
    /// on a 2-core machine (debug builds are slower; the estimate only weighs
    /// trials against each other and is rescaled by the time really taken).
    public static let processOverheadSeconds = 0.15

    /// What a count-bound trial is assumed to take, since its length depends
    /// on the code under test.
    public static let countBoundSeconds = 1.0

    /// Expected seconds for `trial`: warm-up plus the measured window plus the
    /// process overhead.
    public static func seconds(_ trial: TrialSpec) -> Double {
        let window = trial.durationNanoseconds.map { Double($0) / 1e9 } ?? countBoundSeconds
        return Double(trial.warmupNanoseconds) / 1e9 + window + processOverheadSeconds
    }
}
