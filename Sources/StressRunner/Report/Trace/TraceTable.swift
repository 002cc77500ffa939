/// Lays out drawn trace lines as a table: one column per worker (`main`
/// first when the main thread has lines), each line in its worker's column
/// with its source location right-aligned, a `state` column at the right when
/// some line has a state, and a fold line across the whole table.
///
/// ```text
/// | worker 0                       | worker 1                       |
/// | increment()                    |                                |
/// |   read count -> 0   Counter:41 |                                |
/// ```
package struct TraceTable: Sendable, Equatable {
    /// The widest a worker's column gets; longer text is cut with `…`.
    package var maxColumnWidth = 60
    /// The widest the state column gets.
    package var maxStateWidth = 40
    /// Column headers other than `worker N`, by worker: a controlled trial's
    /// queue workers (numbered after its thread workers and the main
    /// thread) as `queue 'jobs'`.
    package var names: [Int: String] = [:]

    /// The default widths.
    package static let standard = TraceTable()

    /// The table's lines: the column headers, then one line per trace line.
    package func render(_ lines: [TraceLine]) -> [String] {
        let workers = Set(lines.compactMap(\.worker)).sorted()
        let column = Dictionary(uniqueKeysWithValues: workers.enumerated().map { ($1, $0) })
        let headers = workers.map { names[$0] ?? ($0 < 0 ? "main" : "worker \($0)") }
        // Each column's locations end at its right edge, so they line up.
        var locationWidth = [Int](repeating: 0, count: workers.count)
        for line in lines {
            if let w = line.worker, let loc = line.location { locationWidth[column[w]!] = max(locationWidth[column[w]!], loc.count) }
        }
        let cells: [(column: Int, text: String, location: String?)?] = lines.map { line in
            guard let w = line.worker else { return nil }
            let c = column[w]!
            let location = line.location.map { Self.cut($0, to: maxColumnWidth) }
            let room = location == nil ? maxColumnWidth : max(1, maxColumnWidth - 2 - locationWidth[c])
            return (c, Self.cut(line.text, to: room), location)
        }
        var widths = headers.map(\.count)
        for case let cell? in cells {
            let width = cell.text.count + (cell.location == nil ? 0 : 2 + locationWidth[cell.column])
            widths[cell.column] = max(widths[cell.column], min(width, maxColumnWidth))
        }
        let states = lines.map { $0.state.map { Self.cut($0, to: maxStateWidth) } }
        let stateWidth = states.contains { $0 != nil } ? max("state".count, states.map { $0?.count ?? 0 }.max() ?? 0) : nil
        // A fold spans the table; the last column widens when one is wider.
        let spans = lines.filter { $0.worker == nil }.map(\.text.count).max() ?? 0
        let inner = { widths.reduce(0, +) + 3 * (widths.count - 1) + (stateWidth.map { $0 + 3 } ?? 0) }
        if !widths.isEmpty, spans > inner() { widths[widths.count - 1] += spans - inner() }

        func row(_ texts: [String], state: String?) -> String {
            var parts = zip(texts, widths).map { Self.padded($0, to: $1) }
            if let stateWidth { parts.append(Self.padded(state ?? "", to: stateWidth)) }
            return "| " + parts.joined(separator: " | ") + " |"
        }
        var out = [row(headers, state: stateWidth == nil ? nil : "state")]
        for (i, line) in lines.enumerated() {
            guard let cell = cells[i] else {
                out.append("| " + Self.padded(line.text, to: max(inner(), 1)) + " |")
                continue
            }
            var texts = [String](repeating: "", count: workers.count)
            if let location = cell.location {
                let gap = widths[cell.column] - cell.text.count - location.count
                texts[cell.column] = cell.text + String(repeating: " ", count: max(2, gap)) + location
            } else {
                texts[cell.column] = cell.text
            }
            out.append(row(texts, state: states[i]))
        }
        return out
    }

    /// `text` cut to `width` characters, the last one `…` when it was longer.
    static func cut(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        return width <= 1 ? "…" : String(text.prefix(width - 1)) + "…"
    }

    static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
