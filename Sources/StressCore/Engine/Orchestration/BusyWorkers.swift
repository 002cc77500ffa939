import Foundation

/// The workers that run operations in a controlled run that leaves the
/// others idle: shrinking's smaller runs, and their replays
/// (`--busy-workers`). An idle worker starts and ends with the rest but
/// runs no operation and takes no part in the schedule.
///
/// Shrinking busies the workers a failure involves, which need not be the
/// first ones, so this is a set of workers and not a count. Written as a
/// count ("2": workers 0 and 1) when it is the first few, otherwise as a
/// list in the schedule's worker names ("w1,w3").
package struct BusyWorkers: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The busy workers' indices, ascending, without repeats.
    package let workers: [Int]

    /// The given workers (any order; repeats are dropped).
    package init(_ workers: some Sequence<Int>) {
        self.workers = Array(Set(workers)).sorted()
    }

    /// Workers 0 to `count` − 1.
    package init(first count: Int) {
        workers = Array(0..<max(0, count))
    }

    /// Whether `worker` runs operations.
    package func contains(_ worker: Int) -> Bool {
        workers.contains(worker)
    }

    /// These workers less any that a trial of `threads` workers lacks.
    package func within(threads: Int) -> BusyWorkers {
        BusyWorkers(workers.filter { $0 < threads })
    }

    /// Whether these are workers 0 to n − 1 for some n.
    package var isFirstFew: Bool {
        workers.enumerated().allSatisfy { $0.offset == $0.element }
    }

    /// The command line's form: "2" for workers 0 and 1, "w1,w3" otherwise.
    package var description: String {
        isFirstFew ? String(workers.count) : workers.map { "w\($0)" }.joined(separator: ",")
    }

    /// Reads the command line's form: a count ("2": the first two workers)
    /// or a list of workers ("w1,w3", or "1,3").
    ///
    /// - Throws: ``BusyWorkers/ParseError`` naming what it could not read.
    package init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.contains(","), !trimmed.hasPrefix("w"), let count = Int(trimmed) {
            guard count >= 1 else { throw ParseError(text: text) }
            self.init(first: count)
            return
        }
        var workers: [Int] = []
        for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            var name = part.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("w") { name.removeFirst() }
            guard let worker = Int(name), worker >= 0 else { throw ParseError(text: text) }
            workers.append(worker)
        }
        guard !workers.isEmpty else { throw ParseError(text: text) }
        self.init(workers)
    }

    /// A `--busy-workers` value that is neither a count nor a list of workers.
    package struct ParseError: Error, CustomStringConvertible {
        /// The text given.
        let text: String
        package var description: String {
            "expects a positive count of workers (2: workers 0 and 1) or a list of workers (w1,w3), got '\(text)'"
        }
    }

    // A count, as records before the list had it, still reads.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int.self) {
            self.init(first: count)
        } else {
            self.init(try container.decode([Int].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(workers)
    }
}
