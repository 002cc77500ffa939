import StressCore

/// How a long interleaving is cut down to what a reader needs: the lines
/// around every switch, with a long run of one worker folded into one line,
/// and at most ``maxLines`` lines in all, the last ones (the failure and the
/// switches nearest it) kept.
///
/// Traces of thousands of events are unreadable (Lincheck's users say so of
/// its 2,500-line ones); what explains a failure is almost always where the
/// workers changed hands, and the end, where the check fired.
package struct TraceFolding: Sendable, Equatable {
    /// Lines kept at the start of a run of one worker: where it resumed.
    package var head = 2
    /// Lines kept at the end of a run: what led to the switch (or the failure).
    package var tail = 4
    /// The most lines a drawn trace has, fold lines included.
    package var maxLines = 60

    /// The default: 2 lines after a switch, 4 before one, 60 in all.
    package static let standard = TraceFolding()

    /// `lines` (of `trace`) folded: each run of one worker longer than
    /// ``head`` + ``tail`` + 1 keeps its first ``head`` and last ``tail``
    /// lines and says how many events it left out between them; then, past
    /// ``maxLines``, the earliest lines give way to one that counts them.
    package func fold(_ lines: [TraceLine], of trace: [TraceEvent]) -> [TraceLine] {
        var folded: [TraceLine] = []
        var start = 0
        while start < lines.count {
            var end = start + 1
            while end < lines.count, lines[end].worker == lines[start].worker { end += 1 }
            if end - start > head + tail + 1 {
                folded += lines[start..<start + head]
                let left = lines[start + head].events.lowerBound..<lines[end - tail - 1].events.upperBound
                folded.append(TraceLine(worker: nil, text: Self.runFold(worker: lines[start].worker ?? 0, left, of: trace), events: left))
                folded += lines[(end - tail)..<end]
            } else {
                folded += lines[start..<end]
            }
            start = end
        }
        guard folded.count > maxLines, maxLines > 1 else { return folded }
        let kept = folded.suffix(maxLines - 1)
        let earlier = 0..<kept.first!.events.lowerBound
        return [TraceLine(worker: nil, text: Self.earlierFold(earlier, of: trace), events: earlier)] + kept
    }

    /// `... 37 more events of worker 0 (12 operations) ...`.
    static func runFold(worker: Int, _ events: Range<Int>, of trace: [TraceEvent]) -> String {
        let operations = trace[events].filter { $0.kind == .operationStart }.count
        let who = worker < 0 ? "main" : "worker \(worker)"
        let counted = operations == 0 ? "" : " (\(TraceText.counted(operations, "operation")))"
        return "... \(TraceText.grouped(events.count)) more events of \(who)\(counted) ..."
    }

    /// `... 1,204 earlier events (3 preemptions, 310 operations) ...`.
    static func earlierFold(_ events: Range<Int>, of trace: [TraceEvent]) -> String {
        let slice = trace[events]
        let preemptions = slice.filter { $0.kind == .switch && $0.preempted == true }.count
        let operations = slice.filter { $0.kind == .operationStart }.count
        return "... \(TraceText.grouped(events.count)) earlier events (\(TraceText.counted(preemptions, "preemption")), "
            + "\(TraceText.counted(operations, "operation"))) ..."
    }
}
