import Foundation

/// What a linearizability check found in one trial, as the JSON trial record
/// carries it under `linearizability`.
package struct LinearizabilityRecord: Sendable, Codable, Equatable {
    /// `linearizable` (every round's history was), `violated` (at least one
    /// was not), or `unknown` (none was violated, but the checker's time
    /// bound ran out on at least one: nothing is claimed for those).
    package var verdict: LinearizabilityVerdict
    /// How many distinct scenarios ran (each many times, on a fresh object).
    package var scenarios: Int
    /// How many rounds' histories were checked.
    package var histories: Int
    /// How many of them the checker could not decide in its time bound.
    package var undecided: Int
    /// Violated: the smallest failing scenario's history, one entry per
    /// operation in the order of their calls. Nil otherwise.
    package var history: [Entry]?
    /// Violated: the operations of ``history`` (their positions) in the
    /// longest order the checker could explain, closest to a sequential one.
    package var closest: [Int]?
    /// Violated: the model's state after ``closest``.
    package var closestState: String?
    /// Violated: how the failing scenario was shrunk: its operations when
    /// first found, when reported, and whether every smaller one was tried.
    package var shrink: Shrink?

    /// One operation of a reported history.
    package struct Entry: Sendable, Codable, Equatable {
        /// The worker that called it; -1 for the initial and final parts
        /// (one thread, before and after the workers).
        package var worker: Int
        /// The operation and its arguments, as Swift describes them.
        package var operation: String
        /// What it returned, as Swift describes it; nil when it never returned.
        package var result: String?
        /// The logical clock at its call and at its return (see `HistoryRecorder`).
        package var call: UInt64
        package var `return`: UInt64?
        /// True for a result no sequential order explains.
        package var unexplained: Bool?

        package init(worker: Int, operation: String, result: String?, call: UInt64, return: UInt64?, unexplained: Bool?) {
            self.worker = worker
            self.operation = operation
            self.result = result
            self.call = call
            self.return = `return`
            self.unexplained = unexplained
        }
    }

    /// How a failing scenario was shrunk.
    package struct Shrink: Sendable, Codable, Equatable {
        /// Operations in the scenario as first found failing.
        package var from: Int
        /// Operations in the scenario reported.
        package var to: Int
        /// True when no scenario with one operation fewer failed within its
        /// runs: the reported one is minimal. False when the trial ended first.
        package var complete: Bool
    }

    package init(verdict: LinearizabilityVerdict, scenarios: Int, histories: Int, undecided: Int,
                 history: [Entry]? = nil, closest: [Int]? = nil, closestState: String? = nil, shrink: Shrink? = nil) {
        self.verdict = verdict
        self.scenarios = scenarios
        self.histories = histories
        self.undecided = undecided
        self.history = history
        self.closest = closest
        self.closestState = closestState
        self.shrink = shrink
    }
}

extension LinearizabilityRecord {
    /// `linearizable: 3 scenarios, 300 histories checked` (and how many the
    /// checker could not decide).
    package var summary: String {
        "\(verdict.rawValue): \(scenarios) scenario\(scenarios == 1 ? "" : "s"), \(histories) histor\(histories == 1 ? "y" : "ies") checked"
            + (undecided > 0 ? " (\(undecided) undecided within the checker's time bound)" : "")
    }

    /// A violation's smallest failing scenario: how it was shrunk, then its
    /// history as ``historyTable`` draws it. Empty when not violated.
    package var failureLines: [String] {
        guard verdict == .violated, history != nil else { return [] }
        var head = "smallest failing scenario"
        if let shrink {
            head += shrink.from == shrink.to ? " (\(shrink.to) operations" : " (shrunk from \(shrink.from) to \(shrink.to) operations"
            head += shrink.complete ? "; none smaller fails)" : "; not every smaller one was tried before the trial ended)"
        }
        return [head + ":"] + historyTable
    }

    /// The failing history as a table: the clock's readings at the call and
    /// the return (`3-6`: an operation whose readings overlap another's may
    /// be ordered either way), then one column per thread (the initial and
    /// final parts in a column of their own), one row per operation in the
    /// order of their calls, each cell `operation → result`, a result no
    /// order explains marked `✗`; then the line that says which results
    /// no order explains. Empty when there is no failing history.
    package var historyTable: [String] {
        guard let history, !history.isEmpty else { return [] }
        let workers = Set(history.map(\.worker)).filter { $0 >= 0 }.sorted()
        // -2: the clock's column.
        let columns = [-2] + (history.contains { $0.worker < 0 } ? [-1] : []) + workers
        let titles = columns.map { $0 == -2 ? "clock" : $0 < 0 ? "init/post" : "thread \($0)" }
        func clock(_ e: Entry) -> String { "\(e.call)-" + (e.return.map(String.init) ?? "") }
        func cell(_ e: Entry) -> String {
            "\(e.operation) → \(e.result ?? "(pending)")" + (e.unexplained == true ? " ✗" : "")
        }
        var widths = titles.map(\.count)
        for e in history {
            widths[0] = max(widths[0], clock(e).count)
            if let c = columns.firstIndex(of: e.worker) { widths[c] = max(widths[c], cell(e).count) }
        }
        func row(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined(separator: " | ")
                .replacingTrailingSpaces()
        }
        var lines = [row(titles), widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-")]
        for e in history {
            var cells = Array(repeating: "", count: columns.count)
            cells[0] = clock(e)
            if let c = columns.firstIndex(of: e.worker) { cells[c] = cell(e) }
            lines.append(row(cells))
        }
        let wrong = history.filter { $0.unexplained == true }.map { "\($0.operation) → \($0.result ?? "(pending)")" + ($0.worker >= 0 ? " (thread \($0.worker))" : "") }
        if !wrong.isEmpty {
            lines.append("no sequential order explains: " + wrong.joined(separator: ", "))
        }
        if let closest, !closest.isEmpty {
            let order = closest.compactMap { $0 < history.count ? "\(history[$0].operation) → \(history[$0].result ?? "(pending)")" : nil }
            lines.append("closest sequential order: " + order.joined(separator: "; ")
                         + (closestState.map { " (state then: \($0))" } ?? ""))
        }
        return lines
    }
}

extension String {
    /// This text without the spaces at its end.
    fileprivate func replacingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
