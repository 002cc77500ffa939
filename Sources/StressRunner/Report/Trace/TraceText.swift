import StressCore

/// A failed controlled trial's interleaving as reports print it: a header
/// line, the folded table (``TraceFolding``, ``TraceTable``), and for a
/// deadlock its wait-for cycle.
///
/// ```text
/// interleaving (2 workers, 1 preemption; shrunk from 4,812 events):
/// | worker 0                       | worker 1                       |
/// | increment()                    |                                |
/// |   read count -> 0   Counter:41 |                                |
/// |   -- switch (preempted) --     |                                |
/// ...
/// ```
package enum TraceText {
    /// The block's lines, without indentation; nil when `result` has no trace
    /// (or none of its events needs a line: then there is nothing to draw).
    ///
    /// - Parameters:
    ///   - result: A trial's record.
    ///   - folding: How to cut a long trace down.
    ///   - table: The column widths.
    package static func block(_ result: TrialResult, folding: TraceFolding = .standard, table: TraceTable = .standard) -> [String]? {
        guard let trace = result.trace, !trace.isEmpty else { return nil }
        let lines = folding.fold(TraceLine.lines(of: trace), of: trace)
        guard !lines.isEmpty else { return nil }
        let folded = lines.contains { $0.worker == nil }
        var table = table
        table.names = queueWorkerNames(trace, threads: result.trial.threads)
        var out = [header(trace, shrink: result.shrink, folded: folded)] + table.render(lines)
        if result.outcome == .deadlock, let cycle = result.stall?.cycle, !cycle.isEmpty {
            // One edge a line, aligned: a cycle of three reads as one.
            out += cycle.enumerated().map { ($0 == 0 ? "cycle: " : "       ") + $1 }
        }
        return out
    }

    /// The columns of a controlled trial's queue workers (numbered from
    /// `threads + 1` on, after the workers and the main thread's index: they
    /// run the blocks submitted with `StressQueue.async`), named by the queue
    /// whose blocks they ran: `queue 'jobs'`. (The main thread's own events
    /// carry worker -1: its column is `main`.)
    static func queueWorkerNames(_ trace: [TraceEvent], threads: Int) -> [Int: String] {
        var names: [Int: String] = [:]
        let prefix = "the queue "
        for event in trace where event.worker > threads && names[event.worker] == nil && event.kind == .acquire {
            if event.name.hasPrefix(prefix) { names[event.worker] = "queue " + event.name.dropFirst(prefix.count) }
        }
        for event in trace where event.worker > threads && names[event.worker] == nil { names[event.worker] = "queue worker \(event.worker)" }
        return names
    }

    /// `interleaving (2 workers, 1 preemption; shrunk from 4,812 events):`,
    /// with the trace's own length when some of it is folded away.
    static func header(_ trace: [TraceEvent], shrink: ScheduleRecord.Shrinking?, folded: Bool) -> String {
        let workers = Set(trace.map(\.worker))
        var what = counted(workers.filter { $0 >= 0 }.count, "worker") + (workers.contains(-1) ? " and main" : "")
        what += ", " + counted(preemptions(in: trace), "preemption")
        if folded { what += ", \(grouped(trace.count)) events" }
        if let shrink, shrink.eventsBefore > shrink.eventsAfter { what += "; shrunk from \(grouped(shrink.eventsBefore)) events" }
        return "interleaving (\(what)):"
    }

    /// The switches away from a worker that could have gone on.
    static func preemptions(in trace: [TraceEvent]) -> Int {
        trace.filter { $0.kind == .switch && $0.preempted == true }.count
    }

    /// A one-line summary of a trace not drawn (only the first failure's is):
    /// `trace: 9 events, 1 preemption, in the JSON results`.
    package static func summary(_ result: TrialResult) -> String? {
        guard let trace = result.trace, !trace.isEmpty else { return nil }
        return "trace: \(counted(trace.count, "event")), \(counted(preemptions(in: trace), "preemption")), in the JSON results "
            + "(the report draws the first failure's)"
    }

    /// `shrunk from 4,812 events, 3 preemptions to 9 events, 1 preemption
    /// (57 candidates replayed)`, and when the time bound stopped it, that
    /// the result is smaller but perhaps not smallest.
    package static func shrinkLine(_ s: ScheduleRecord.Shrinking) -> String {
        "shrunk from \(counted(s.eventsBefore, "event")), \(counted(s.preemptionsBefore, "preemption")) "
            + "to \(counted(s.eventsAfter, "event")), \(counted(s.preemptionsAfter, "preemption")) "
            + "(\(counted(s.attempts, "candidate")) replayed"
            + (s.timedOut ? "; stopped at its time bound: smaller, perhaps not smallest)" : ")")
    }

    /// `4,812`: a count with its thousands grouped, as the trace's lines say it.
    package static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// `1 preemption`, `2 preemptions`, `1,204 schedules`.
    package static func counted(_ n: Int, _ noun: String) -> String {
        "\(grouped(n)) \(noun)\(n == 1 ? "" : "s")"
    }
}
