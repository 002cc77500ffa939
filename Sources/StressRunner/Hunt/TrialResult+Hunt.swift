import Foundation
import StressCore

extension TrialResult {
    /// What a report prints of a free-running failure after its rerun line:
    /// the command that hunts for it under control and, when a hunt
    /// ran, what the hunt found: the controlled trial's interleaving (drawn
    /// when `drawTrace`, else counted), its shrinking and its replay command.
    /// Empty for a trial control cannot run, and for a controlled one (which
    /// has its own trace).
    ///
    /// - Parameters:
    ///   - planFile: The plan file, for the replay command.
    ///   - rerun: How commands start; `stressbench` alone when nil.
    ///   - drawTrace: Whether to draw a found trace or only count it.
    package func huntLines(planFile: String, rerun: RerunCommand?, drawTrace: Bool) -> [String] {
        var lines = huntCommand.map { ["hunt under control: " + $0] } ?? []
        guard let hunt else { return lines }
        let spent = Self.huntSeconds(hunt.seconds)
        guard hunt.found, let found = hunt.result else {
            lines.append("hunted under control: not found in \(hunt.attempts) controlled trial(s), \(spent); the command above hunts on")
            return lines
        }
        lines.append("found under control (seed \(found.trial.seed); \(hunt.attempts) controlled trial(s), \(spent)):")
        var inner = found.problemLine.isEmpty ? [] : ["\(found.outcome.rawValue): \(found.problemLine)"]
        inner += found.interleavingLines(planFile: planFile, rerun: (rerun ?? .standard).huntReplay, drawTrace: drawTrace)
        return lines + inner.map { "  " + $0 }
    }

    /// `1.4 s`: a hunt's time as reports print it.
    package static func huntSeconds(_ seconds: Double) -> String {
        String(format: "%.1f s", seconds)
    }
}

extension TraceText {
    /// Which of `problems` (the trials a report details) gets the trace its
    /// hunt found drawn: the first whose hunt found one. One drawing is
    /// enough to read; the JSON results hold every hunt's trace.
    package static func huntDrawnIndex(_ problems: [TrialResult]) -> Int? {
        problems.firstIndex { $0.hunt?.result?.trace?.isEmpty == false }
    }
}
