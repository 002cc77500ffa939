import StressCore

/// What a report says of a controlled trial that did not pass.
package struct ScheduleSummary: Sendable, Equatable {
    /// `schedule: controlled, 1234 decisions`, and what escaped the harness
    /// when the control was partial.
    package var line: String
    /// The command that replays the trial: following its recorded schedule
    /// exactly, or by its seed when the schedule is too long to print. Nil
    /// when it recorded no decisions.
    package var replay: String?
    /// Why the replay goes by the seed, when it does.
    package var note: String?
}

extension TrialResult {
    /// The longest schedule a report prints in a replay command; a longer
    /// one is replayed by the seed, and the JSON results hold it whole.
    package static let longestPrintedSchedule = 2_000

    /// The decisions of a controlled trial and the command that replays its
    /// schedule (`rerun`'s executable and overrides; `stressbench` alone when
    /// nil). Nil for a free trial, and for one that recorded no schedule.
    package func scheduleSummary(planFile: String, rerun: RerunCommand?) -> ScheduleSummary? {
        guard let s = schedule, s.mode == .controlled else { return nil }
        var line = "schedule: controlled" + (s.decisions.map { ", \($0) decisions" } ?? "")
        if s.controlled == .partial {
            line += "; partial control, so a replay may differ" + (s.escapes?.first.map { ": \($0)" } ?? "")
        }
        let command = rerun ?? .standard
        // A shrunk failure replays its smallest schedule (which the record's
        // `schedule` then holds too).
        guard let encoded = shrink?.encoded ?? s.encoded, !encoded.isEmpty else { return ScheduleSummary(line: line) }
        guard encoded.utf8.count <= Self.longestPrintedSchedule else {
            return ScheduleSummary(line: line, replay: command.replay(trial, planFile: planFile, schedule: nil),
                                   note: "by the seed: the schedule's \(encoded.utf8.count) characters are too long to print; "
                                       + "the JSON results hold it whole, as schedule.encoded")
        }
        return ScheduleSummary(line: line, replay: command.replay(trial, planFile: planFile, schedule: encoded))
    }

    /// ``scheduleSummary(planFile:rerun:)`` as plain lines (`replay: …`), for
    /// the terminal and JUnit.
    package func scheduleLines(planFile: String, rerun: RerunCommand?) -> [String] {
        guard let s = scheduleSummary(planFile: planFile, rerun: rerun) else { return [] }
        return [s.line] + (s.replay.map { ["replay: " + $0 + (s.note.map { " (\($0))" } ?? "")] } ?? [])
    }
}
