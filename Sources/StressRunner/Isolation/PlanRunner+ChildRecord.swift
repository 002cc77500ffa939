import Foundation
import StressCore

/// Reading what a trial's child process left behind: its record, how it ended,
/// and the lines of its output that explain it (``CrashOutput``).
extension PlanRunner {
    /// Turns what a child left behind into a record.
    static func interpret(_ capture: ChildCapture, spec: TrialSpec) -> TrialResult {
        let tail = CrashOutput.kept(capture.outputTail)
        let record = capture.result.isEmpty ? nil : try? ResultCoding.decoder().decode(TrialResult.self, from: Data(capture.result))
        if var record, record.trial.id == spec.id,
           capture.killedAfterRecord || (capture.termination == .exited(TrialChild.stalledExitStatus) && record.stall != nil) {
            // The child reported a stall (a deadlock, a hang) and then ended
            // itself, or was ended by us, its workers stuck for good.
            record.failure?.outputTail = tail
            return record
        }
        switch capture.termination {
        case .interrupted:
            let signal = Interruption.signal.map(ChildProcess.signalName) ?? "a signal"
            return .failed(spec, .skipped, FailureReport(message: "interrupted by \(signal) before it finished; its process was ended", outputTail: tail))
        case .timedOut:
            let limit = Quantities.format(nanoseconds: UInt64(spec.timeoutNanoseconds))
            return .failed(spec, .timeout, FailureReport(message: "did not finish within its \(limit) timeout; killed", outputTail: tail))
        case .signaled(let sig):
            let name = ChildProcess.signalName(sig)
            return .failed(spec, .crashed, FailureReport(message: "the trial process died of \(name)", signal: name, outputTail: tail))
        case .exited(let status):
            if var record, record.trial.id == spec.id {
                if status != 0 {
                    // Whatever went wrong after the record (an exit handler, a
                    // crash on the way out) is a failure; the figures are kept.
                    record.outcome = .crashed
                    record.failure = FailureReport(message: "the trial process exited with status \(status) after writing its record",
                                                   exitStatus: Int(status), outputTail: tail)
                }
                return record
            }
            if status != 0 {
                return .failed(spec, .crashed, FailureReport(message: "the trial process exited with status \(status) and no result", exitStatus: Int(status), outputTail: tail))
            }
            let what = capture.result.isEmpty
                ? "the trial process exited without writing a result record"
                : "the trial process wrote something that is not a result record: "
                    + String(decoding: capture.result.prefix(120), as: UTF8.self).debugDescription
            return .failed(spec, .error, FailureReport(message: what, exitStatus: 0, outputTail: tail))
        }
    }

    /// The last `count` lines of a child's output, without the runtime's
    /// stack-trace frames (`12  stressbench  0x... <unavailable> + 123`), which
    /// would otherwise push the one line that matters (`Fatal error: ...`) out.
    static func lastLines(_ bytes: [UInt8], count: Int) -> [String] {
        var kept: [String] = []
        var frames = 0
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            if isStackFrame(line) || line.hasPrefix("Current stack trace:") {
                frames += 1
            } else {
                if frames > 0 { kept.append("(\(frames) stack-trace lines omitted)") }
                frames = 0
                kept.append(String(line))
            }
        }
        if frames > 0 { kept.append("(\(frames) stack-trace lines omitted)") }
        return Array(kept.suffix(count))
    }

    static func isStackFrame(_ line: Substring) -> Bool {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        return parts.count >= 3 && Int(parts[0]) != nil && parts.dropFirst(2).first?.hasPrefix("0x") == true
    }
}
