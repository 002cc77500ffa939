import StressCore

extension MarkdownReport {
    /// A free-running failure's hunt under control, as list-item lines: the
    /// command that hunts for it and, when a hunt ran, what it found,
    /// the found interleaving in a fenced block when `drawTrace`. Empty when
    /// there is nothing to hunt.
    static func huntText(_ r: TrialResult, of report: RunReport, drawTrace: Bool) -> String {
        var out = ""
        if let command = r.huntCommand { out += "  \n  hunt under control: `\(command)`" }
        guard let hunt = r.hunt else { return out }
        let spent = TrialResult.huntSeconds(hunt.seconds)
        guard hunt.found, let found = hunt.result else {
            return out + "  \n  hunted under control: not found in \(hunt.attempts) controlled trial(s), \(spent)"
        }
        out += "  \n  found under control (seed \(found.trial.seed); \(hunt.attempts) controlled trial(s), \(spent))"
        if !found.problemLine.isEmpty { out += ": " + escape("\(found.outcome.rawValue): \(found.problemLine)") }
        let schedule = found.scheduleSummary(planFile: report.planFile, rerun: (report.rerun ?? .standard).huntReplay)
        if let shrink = found.shrink { out += "  \n  " + escape(TraceText.shrinkLine(shrink)) }
        if let replay = schedule?.replay { out += "  \n  replay: `\(replay)`" + (schedule?.note.map { " (\(escape($0)))" } ?? "") }
        if drawTrace, let block = TraceText.block(found) {
            out += "\n\n" + fenced(block).split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
        } else if let summary = TraceText.summary(found) {
            out += "  \n  " + escape(summary)
        }
        return out
    }
}
