import Foundation
import StressCore

extension TrialResult {
    /// What went wrong, in one line, without the outcome a failure's message
    /// may start with (so a report that prints the outcome first never says
    /// "deadlock: deadlock:"): the first violation, else the failure's
    /// message; empty when there is neither.
    public var problemLine: String {
        let outcome = self.outcome.rawValue
        let first = violations.samples.first?.summaryLine ?? failure?.message ?? ""
        if first == outcome { return "" }
        return first.hasPrefix(outcome + ": ") ? String(first.dropFirst(outcome.count + 2)) : first
    }

    /// For a crashed trial, the line of its output that says why it died:
    /// the Swift runtime's `Fatal error: ...` (with the file and line it
    /// names), libdispatch's `BUG IN CLIENT OF LIBDISPATCH: ...`, an
    /// assertion's message, glibc's allocator's (`double free or corruption
    /// (top)`); nil when the output names none (a silent trap: the failure's
    /// message then says what that is) and for every other outcome. At most
    /// 300 characters.
    public var crashCause: String? {
        guard outcome == .crashed, let tail = failure?.outputTail else { return nil }
        guard let line = tail.first(where: { CrashCause.isMessage($0) || $0.contains("fatal error") }) else { return nil }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.count > 300 ? String(trimmed.prefix(299)) + "…" : trimmed
    }
}
