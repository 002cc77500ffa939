import Foundation
import StressCore

/// Runs every trial of a plan twice, once in a child process of each build,
/// back to back: the pairs `stressbench ab` compares.
///
/// The trials run repetition first (every cell's pair of repetition 0, then
/// every cell's pair of repetition 1, ...), so a drift of the machine over
/// the run touches every cell alike; within a pair the two trials run one
/// right after the other, so the drift between them is as small as it can
/// be. Which build goes first alternates from one repetition to the next
/// (old first in even repetitions, new first in odd ones): whatever the
/// first or second trial of a pair gains (a warmer cache, a CPU that has
/// just clocked up) is shared equally.
///
/// Both children are started the same way: the same trial spec on standard
/// input, the same environment and the same CPU affinity (the parent's),
/// the same timeout; a trial of either build that crashes, deadlocks or
/// times out becomes its record and the run goes on.
package struct PairedRunner: Sendable {
    /// The runners of each side; they differ only in the executable.
    let old: PlanRunner
    let new: PlanRunner
    /// Catch SIGINT and SIGTERM (see ``RunOptions/handleInterrupts``).
    public let handleInterrupts: Bool
    /// Stop after the first pair in which a trial does not pass.
    public let failFast: Bool

    /// A runner of `oldExecutable` against `newExecutable`. `registry` only
    /// explains silent traps of known strategies; each child looks its
    /// trials up in its own build. `pairs` is recorded in rerun commands.
    public init(
        oldExecutable: String, newExecutable: String, registry: StressRegistry, pairs: Int,
        handleInterrupts: Bool = false, failFast: Bool = false
    ) {
        func runner(_ executable: String) -> PlanRunner {
            let options = RunOptions(isolation: .childProcess(executable: executable, arguments: [TrialIsolation.trialCommand]),
                                     handleInterrupts: handleInterrupts, repetitions: pairs, executableName: executable)
            return PlanRunner(registry: registry, options: options)
        }
        old = runner(oldExecutable)
        new = runner(newExecutable)
        self.handleInterrupts = handleInterrupts
        self.failFast = failFast
    }

    /// What a paired run produced.
    public struct Output: Sendable {
        /// Each build's records, in the order they ran.
        public var old: [TrialResult]
        public var new: [TrialResult]
        /// For every trial id, whether the old build's trial ran first.
        public var oldFirst: [String: Bool]
        /// Why the run stopped early, or nil.
        public var stop: RunStop?
    }

    /// The order the pairs run in: repetition first, then the plan's order.
    public static func schedule(_ trials: [TrialSpec]) -> [TrialSpec] {
        trials.sorted { ($0.repetition, $0.index) < ($1.repetition, $1.index) }
    }

    /// Runs a pair of every trial in `trials` (see ``schedule(_:)``);
    /// `progress` is called before each pair starts (nil result) and after
    /// each of its trials ends. `planFile` goes into rerun commands.
    public func run(
        _ trials: [TrialSpec], planFile: String,
        progress: (@Sendable (_ pair: Int, _ pairs: Int, TrialSpec, _ side: String, TrialResult?) -> Void)? = nil
    ) -> Output {
        if handleInterrupts { Interruption.install() }
        let ordered = Self.schedule(trials)
        var output = Output(old: [], new: [], oldFirst: [:], stop: nil)
        for (i, spec) in ordered.enumerated() {
            if let signal = interruption() {
                output.stop = RunStop(reason: .signal, signal: signal)
                break
            }
            let oldFirst = spec.repetition % 2 == 0
            output.oldFirst[spec.id] = oldFirst
            progress?(i, ordered.count, spec, oldFirst ? "old" : "new", nil)
            for side in oldFirst ? ["old", "new"] : ["new", "old"] {
                let runner = side == "old" ? old : new
                var result = runner.runTrial(spec)
                if result.outcome != .passed { result.rerunCommand = runner.rerunCommand(for: result.trial, planFile: planFile) }
                if side == "old" { output.old.append(result) } else { output.new.append(result) }
                progress?(i, ordered.count, spec, side, result)
                if interruption() != nil { break }
            }
            if let signal = interruption() {
                output.stop = RunStop(reason: .signal, signal: signal, trial: spec.id)
            } else if failFast, let bad = (output.old.suffix(1) + output.new.suffix(1)).first(where: { $0.outcome.isFailure }) {
                output.stop = RunStop(reason: .failFast, trial: bad.trial.id)
            }
            if output.stop != nil { break }
        }
        return output
    }

    private func interruption() -> String? {
        guard handleInterrupts, let signal = Interruption.signal else { return nil }
        return ChildProcess.signalName(signal)
    }
}
