/// The text form of a controlled trial's decisions (the record's
/// `schedule.encoded`, `replay --schedule`): the worker chosen at each
/// decision, run-length encoded as `w<worker>:<count>` joined by commas, so
/// `w0:2,w1:3,w0:1` is worker 0 twice, worker 1 three times, worker 0 once.
/// In a trial of n workers, `w<n>` is the main thread (where it takes part)
/// and `w<n+1>` to `w<n+4>` are the queue workers, which run the blocks
/// submitted with `StressQueue.async` under control.
package enum ScheduleEncoding {
    /// Why a schedule's text could not be read.
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        /// What is wrong, naming the offending run.
        package let description: String
    }

    /// The text of `runs` (worker, count) pairs.
    package static func encode(_ runs: [(worker: Int, count: Int)]) -> String {
        var text = ""
        text.reserveCapacity(runs.count * 6)
        for (i, run) in runs.enumerated() {
            if i > 0 { text += "," }
            text += "w\(run.worker):\(run.count)"
        }
        return text
    }

    /// The queue workers a controlled trial has after its thread workers and
    /// the main thread (they run the blocks submitted with
    /// `StressQueue.async`), which a schedule may name too.
    package static let queueWorkers = QueueBook.slots

    /// The decisions `text` encodes, one worker index per decision. The
    /// empty text is no decision at all. Given the trial's thread workers
    /// (`workers`), a worker must be one of them, the main thread (index
    /// `workers`) or one of the queue workers after it.
    package static func decode(_ text: String, workers: Int? = nil) throws(ParseError) -> [Int] {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { return [] }
        var decisions: [Int] = []
        for (i, part) in trimmed.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let run = part.trimmingSpaces
            let pieces = run.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count == 2, pieces[0].first == "w", let worker = Int(pieces[0].dropFirst()), worker >= 0,
                  let count = Int(pieces[1]), count > 0 else {
                throw ParseError(description: "run \(i + 1) of the schedule, '\(run)', is not w<worker>:<count> "
                                 + "(for example w0:2,w1:3: worker 0 twice, then worker 1 three times)")
            }
            // w<workers> is the main thread, where it takes part; the queue
            // workers come after it.
            if let workers, worker > workers + queueWorkers {
                throw ParseError(description: "run \(i + 1) of the schedule, '\(run)', names worker \(worker), "
                                 + "but the trial has \(workers) worker(s) (w0 to w\(workers - 1)), the main thread (w\(workers)) "
                                 + "and \(queueWorkers) queue workers (w\(workers + 1) to w\(workers + queueWorkers))")
            }
            guard decisions.count + count <= 100_000_000 else {
                throw ParseError(description: "the schedule has more than 100,000,000 decisions")
            }
            decisions.append(contentsOf: repeatElement(worker, count: count))
        }
        return decisions
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
