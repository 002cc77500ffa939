import StressCore

extension TrialResult {
    /// What a report prints of a controlled trial that did not pass, after its
    /// rerun command: the schedule's line, the drawn interleaving (or, when
    /// `drawTrace` is false, one line that says the JSON has it), how it was
    /// shrunk, and the command that replays its (shrunk) schedule. Empty for
    /// a free-running trial.
    ///
    /// - Parameters:
    ///   - planFile: The plan file, for the replay command.
    ///   - rerun: How rerun commands start; `stressbench` alone when nil.
    ///   - drawTrace: Whether to draw the trace or only count it.
    package func interleavingLines(planFile: String, rerun: RerunCommand?, drawTrace: Bool) -> [String] {
        let schedule = scheduleSummary(planFile: planFile, rerun: rerun)
        var lines = schedule.map { [$0.line] } ?? []
        if drawTrace, let block = TraceText.block(self) {
            lines += block
        } else if let summary = TraceText.summary(self) {
            lines.append(summary)
        }
        if let shrink { lines.append(TraceText.shrinkLine(shrink)) }
        if let replay = schedule?.replay { lines.append("replay: " + replay + (schedule?.note.map { " (\($0))" } ?? "")) }
        return lines
    }
}

extension TraceText {
    /// Which of `problems` (the trials a report details, in its order) gets
    /// its trace drawn: the first with a trace that failed where its plan
    /// did not expect it, else the first with a trace at all. One drawing is
    /// enough to read; the JSON results hold every trace.
    package static func drawnIndex(_ problems: [TrialResult]) -> Int? {
        problems.firstIndex { $0.trace?.isEmpty == false && $0.expectation == .unexpected }
            ?? problems.firstIndex { $0.trace?.isEmpty == false }
    }
}
