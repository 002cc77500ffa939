import StressCore

/// A bounded exhaustive exploration's answer, in one line, as reports print it:
///
/// - `explored 1,204 schedules with at most 2 preemptions: 0 failed (complete for this bound)`
/// - `explored 37 schedules with at most 2 preemptions: 1 failed (the search stops at the first failure)`
/// - `explored with at most 2 preemptions: 0 failed, stopped at the time budget after 812 schedules (~37% of the space)`
///
/// then what pruning saved, where it was counted.
package enum ExplorationText {
    /// The longest failing schedule the line quotes; the JSON has it whole.
    static let longestQuotedSchedule = 120

    /// The line for `e` (`shard 2/4: ` first for a shard's record).
    package static func line(_ e: ScheduleRecord.Exploration) -> String {
        let bound = "with at most " + TraceText.counted(e.bound, "preemption")
        var text = e.shard.map { "shard \($0): " } ?? ""
        if e.failed > 0 {
            text += "explored \(TraceText.counted(e.schedules, "schedule")) \(bound): \(TraceText.grouped(e.failed)) failed"
            if let s = e.failingSchedule {
                text += s.count <= longestQuotedSchedule
                    ? " (the first: --schedule '\(s)')" : " (the first failing schedule is the JSON's exploration.failingSchedule)"
            }
        } else if e.complete {
            text += "explored \(TraceText.counted(e.schedules, "schedule")) \(bound): 0 failed ("
                + (e.shard == nil ? "complete for this bound)" : "this shard's share complete for this bound)")
        } else {
            let share = e.coverage.map { " (~\(Formatting.percent(min(max($0, 0), 1))) of the space)" } ?? " (share of the space not estimated)"
            text += "explored \(bound): 0 failed, stopped at the time budget after \(TraceText.counted(e.schedules, "schedule"))" + share
        }
        if let all = e.schedulesWithoutPruning {
            text += "; \(TraceText.grouped(all)) without pruning (\(TraceText.grouped(e.pruned)) skipped as equivalent)"
        } else if e.pruned > 0 {
            text += "; \(TraceText.grouped(e.pruned)) more skipped as equivalent by pruning"
        }
        return text
    }
}
