// Public names of this module that were renamed, kept for one release (see
// StressCore's DeprecatedNames.swift for the policy).

import StressCore

extension TrialResult {
    /// The former name of ``makeRerunCommand(planFile:)``, renamed so that it
    /// is not mistaken for the record's own ``rerunCommand`` (the exact
    /// command of the run that made it).
    ///
    /// - Parameter planFile: The plan file the command runs.
    /// - Returns: The command that reruns this trial.
    @available(*, deprecated, renamed: "makeRerunCommand(planFile:)")
    public func rerunCommand(planFile: String) -> String { makeRerunCommand(planFile: planFile) }
}

extension TrialResult {
    /// The former name of ``wallTime``, in integer nanoseconds.
    @available(*, deprecated, message: "read wallTime, a Duration")
    public var wallNs: Int? { wallNanoseconds }
}

extension TrialSpec {
    /// The former name of ``warmup``, in integer nanoseconds.
    @available(*, deprecated, message: "read warmup, a Duration")
    public var warmupNs: Int { warmupNanoseconds }
    /// The former name of ``duration``, in integer nanoseconds.
    @available(*, deprecated, message: "read duration, a Duration")
    public var durationNs: Int? { durationNanoseconds }
    /// The former name of ``timeout``, in integer nanoseconds.
    @available(*, deprecated, message: "read timeout, a Duration")
    public var timeoutNs: Int { timeoutNanoseconds }
    /// The former name of ``deadlockAfter``, in integer nanoseconds.
    @available(*, deprecated, message: "read deadlockAfter, a Duration")
    public var deadlockAfterNs: Int { deadlockAfterNanoseconds }
}

extension RerunCommand {
    /// The former form of ``replay(_:planFile:schedule:operations:busyWorkers:)``,
    /// when a shrunk schedule's busy workers were always the first few.
    ///
    /// - Parameters:
    ///   - trial: The trial the replay reruns.
    ///   - planFile: The plan file the command runs.
    ///   - schedule: The recorded schedule to follow, or nil to replay by the seed.
    ///   - operations: The operations per worker the schedule ran, when not the trial's own.
    ///   - busyWorkers: How many workers, from worker 0, ran operations.
    /// - Returns: The replay command.
    @available(*, deprecated, message: "pass busyWorkers as the list of busy workers' indices")
    public func replay(_ trial: TrialSpec, planFile: String, schedule: String?, operations: Int? = nil, busyWorkers: Int) -> String {
        replay(trial, planFile: planFile, schedule: schedule, operations: operations, busyWorkers: Array(0..<max(0, busyWorkers)))
    }
}
