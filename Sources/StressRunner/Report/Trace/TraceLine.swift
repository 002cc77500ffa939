import StressCore

/// One line of a drawn interleaving, before it is laid out in columns: an
/// event in its worker's column, or a fold that stands for lines left out
/// and spans every column.
package struct TraceLine: Sendable, Equatable {
    /// The worker whose column the line is in (-1: the main thread); nil
    /// for a fold, which spans the table.
    package var worker: Int?
    /// What the line says, indented by two spaces inside an operation.
    package var text: String
    /// Where the code under test made the event (`Counter:41`), if it said.
    package var location: String?
    /// The state's one-line description at the event, where there is one.
    package var state: String?
    /// The trace's events the line stands for: its own, and the hidden ones
    /// after it up to the next line's (an operation's end, a finished
    /// worker's last switch), so that a fold can count what it leaves out.
    package var events: Range<Int>

    /// A line.
    package init(worker: Int?, text: String, location: String? = nil, state: String? = nil, events: Range<Int>) {
        self.worker = worker
        self.text = text
        self.location = location
        self.state = state
        self.events = events
    }
}

extension TraceLine {
    /// The lines of `trace`, one per event a reader needs, in the order the
    /// events ran. Left out, since the next line says as much: an
    /// operation's end that reports nothing (the worker's next operation
    /// starts at the column's start), a grant that follows its request at
    /// once (`acquire the lock 'a'` says it), and the switch away from a
    /// worker that finished (its column ends). Every event still belongs to
    /// a line's ``events``.
    package static func lines(of trace: [TraceEvent]) -> [TraceLine] {
        var lines: [TraceLine] = []
        var i = 0
        while i < trace.count {
            let event = trace[i]
            var next = i + 1
            // A grant at once: one line for the request and the grant.
            if event.kind == .acquire, next < trace.count, trace[next].kind == .acquired,
               trace[next].worker == event.worker, trace[next].name == event.name {
                next += 1
            }
            if let text = text(of: event) {
                let state = trace[i..<next].last(where: { $0.state != nil })?.state
                lines.append(TraceLine(worker: event.worker, text: text, location: location(of: event), state: state, events: i..<next))
            } else if !lines.isEmpty {
                lines[lines.count - 1].events = lines[lines.count - 1].events.lowerBound..<next
            } else {
                // Hidden events before the first line: it stands for them too.
                lines.append(TraceLine(worker: nil, text: "", events: i..<next))
            }
            i = next
        }
        // A placeholder for leading hidden events lends its range to the first real line.
        if let first = lines.first, first.worker == nil {
            lines.removeFirst()
            if !lines.isEmpty { lines[0].events = first.events.lowerBound..<lines[0].events.upperBound }
        }
        return lines
    }

    /// What `event` says in its column, or nil when it needs no line of its own.
    static func text(of event: TraceEvent) -> String? {
        let name = event.name
        switch event.kind {
        case .operationStart:
            return name.contains("(") ? name : name + "()"
        case .operationEnd:
            if let value = event.value { return "  returns \(value)" }
            return event.state == nil ? nil : "  end"
        case .step: return "  step " + name
        case .acquire: return "  acquire " + name
        case .acquired: return "  acquired " + name
        case .release: return "  release " + name
        case .wait: return "  wait on " + name
        case .signal: return "  signal " + name
        case .timedOut: return "  timed out on " + name
        case .point: return name.isEmpty ? "  fuzzPoint()" : "  fuzzPoint(\"\(name)\")"
        case .value:
            // `read count -> 0`; a name that ends in `=` reads as an
            // assignment: `write count = 1`.
            guard let value = event.value else { return "  " + name }
            return "  " + name + (name.hasSuffix("=") ? " \(value)" : " -> \(value)")
        case .switch:
            if event.preempted != true, name == "finished", event.state == nil { return nil }
            return "  -- switch (\(name.isEmpty ? (event.preempted == true ? "preempted" : "blocked") : name)) --"
        case .stuck: return "  stuck waiting for " + name
        // A controlled trial killed by its timeout ends on a `crash` event
        // named for that (``PlanRunner/recoveringSchedule``): no "crashed".
        case .crash: return name.hasPrefix("timed out") ? "  -- \(name) --" : "  -- crashed (\(name)) --"
        case .check: return "  check failed"
        }
    }

    /// `Counter:41`: the file's last path component without `.swift`, and
    /// the line; nil when the event has no file.
    static func location(of event: TraceEvent) -> String? {
        guard let file = event.file, !file.isEmpty else { return nil }
        var name = file.split(separator: "/").last.map(String.init) ?? file
        if name.hasSuffix(".swift") { name.removeLast(".swift".count) }
        return event.line.map { "\(name):\($0)" } ?? name
    }
}
