import Foundation
import StressCore

/// What a crashed controlled trial keeps: its process wrote its decisions to
/// a ``CrashJournal`` as it made them, so the parent gives the record the
/// decisions up to the crash (`schedule`, and with it the replay line), an
/// explored trial's `exploration` (the schedules that passed before the one
/// that crashed), and the `trace`. The trace's words (the primitives' and
/// operations' names) live in the dead process, so the parent replays the
/// recorded decisions in a fresh one that halts after the last of them,
/// before the worker chosen last runs into the crash again, and ends the
/// trace with a `crash` event on that worker.
extension PlanRunner {
    /// How the parent starts a trial process: the same as the crashed trial's.
    typealias ChildCommand = (executable: String, arguments: [String], environment: [String: String])

    /// `crashed` with what its process's journal (descriptor `fd`) kept.
    static func recoveringSchedule(of crashed: TrialResult, journal fd: Int32, capture: ChildCapture,
                                   child: ChildCommand) -> TrialResult {
        guard let contents = CrashJournal(descriptor: fd)?.contents(), contents.decisions > 0 else { return crashed }
        var result = crashed
        result.schedule = ScheduleRecord(mode: .controlled, decisions: contents.decisions, encoded: contents.encoded, controlled: .full)
        if let explored = contents.exploration {
            var record = ScheduleRecord.Exploration(
                schedules: explored.passed + 1, failed: 1, complete: false, bound: explored.bound, pruned: explored.pruned,
                shard: crashed.trial.exploration?.shard?.text)
            record.failingSchedule = contents.encoded
            result.exploration = record
        }
        if let encoded = contents.encoded, let trace = replayedTrace(crashed.trial, encoded, contents, child: child) {
            let death = crashed.outcome == .timeout
                ? "timed out: killed after \(Quantities.format(nanoseconds: UInt64(crashed.trial.timeoutNanoseconds)))"
                : crashed.failure?.signal ?? crashed.failure?.exitStatus.map { "exit status \($0)" } ?? "the process died"
            // The main thread's index (one past the workers) is -1 in a trace.
            let last = contents.lastWorker.map { $0 == crashed.trial.threads ? -1 : $0 } ?? 0
            result.trace = trace + [TraceEvent(worker: last, kind: .crash, name: death)]
        }
        return result
    }

    /// The trace of `trial`'s recorded decisions (`encoded`), from a trial
    /// process that follows them and halts after the last; nil when that
    /// replay did not make the same decisions (code the scheduler cannot
    /// see made it go another way) or did not halt.
    private static func replayedTrace(_ trial: TrialSpec, _ encoded: String, _ contents: CrashJournal.Contents,
                                      child: ChildCommand) -> [TraceEvent]? {
        var spec = trial
        spec.forcedSchedule = encoded
        spec.exploration = nil
        spec.shrinkNanoseconds = 0
        spec.haltAfterDecisions = contents.decisions
        if let ops = contents.opsPerThread {
            spec.opsPerThread = ops
            spec.durationNanoseconds = nil
        }
        spec.busyWorkers = contents.busyWorkers
        var environment = child.environment
        // No journal, and no race log: the replay only draws the trace.
        environment[CrashJournal.descriptorVariable] = nil
        environment["TSAN_OPTIONS"] = nil
        guard let input = try? ResultCoding.encoder(pretty: false).encode(spec),
              let capture = try? ChildProcess.run(executable: child.executable, arguments: child.arguments, environment: environment,
                                                  input: Array(input), timeoutNs: UInt64(spec.timeoutNanoseconds)),
              capture.termination == .exited(0),
              let record = try? ResultCoding.decoder().decode(TrialResult.self, from: Data(capture.result)),
              record.schedule?.encoded == encoded, let trace = record.trace
        else { return nil }
        return trace
    }
}
