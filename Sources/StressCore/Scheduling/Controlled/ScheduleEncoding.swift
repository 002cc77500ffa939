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
    ///
    /// Written as bytes into a string of the exact length, measured first:
    /// a trial that switches at nearly every point has as many runs as
    /// decisions. Built a run at a time by interpolation, the text of a
    /// 4,000,000-decision `empty` trial under `--fuzz off` (4,000,000 runs)
    /// took 16% of the run's CPU time, after the measured window, while the
    /// user waited for the record: the run's 1.1 to 1.5 s past the window
    /// are 0.6 to 0.7 s this way (2026-11-29, 2 cores).
    /// (An array, not any collection: the runs are read twice, to measure
    /// and to write, and must be the same both times.)
    package static func encode(_ runs: [(worker: Int, count: Int)]) -> String {
        var length = 0
        for run in runs { length += 3 + DecimalText.length(run.worker) + DecimalText.length(run.count) }  // w, :, and a comma
        guard length > 0 else { return "" }
        return String(unsafeUninitializedCapacity: length - 1) { text in
            let bytes = UnsafeMutableRawBufferPointer(text)
            var at = 0
            for run in runs {
                if at > 0 { bytes[at] = UInt8(ascii: ","); at += 1 }
                bytes[at] = UInt8(ascii: "w")
                at = DecimalText.write(run.worker, at: at + 1, into: bytes)
                bytes[at] = UInt8(ascii: ":")
                at = DecimalText.write(run.count, at: at + 1, into: bytes)
            }
            return at
        }
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
        if let decisions = decodeWritten(text, workers: workers) { return decisions }
        return try decodeRunByRun(text, workers: workers)
    }

    /// The decisions of a text in the form ``encode(_:)`` writes (ASCII
    /// `w`, digits, `:` and `,` only: no spaces, no signs, no empty runs;
    /// leading zeros read as the run-by-run reader reads them) and within
    /// the limits, read byte by byte in one pass, with no string made a
    /// run; nil for any other text, which ``decodeRunByRun(_:workers:)``
    /// then reads, or says what is wrong with.
    static func decodeWritten(_ text: String, workers: Int? = nil) -> [Int]? {
        var text = text
        return text.withUTF8 { bytes -> [Int]? in
            guard !bytes.isEmpty else { return nil }
            var runs: [(worker: Int, count: Int)] = []
            var total = 0, at = 0
            // The decimal number at `at`, at most 18 digits (so it cannot
            // overflow), or nil.
            func number() -> Int? {
                var value = 0, digits = 0
                while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") {
                    guard digits < 18 else { return nil }
                    value = value * 10 + Int(bytes[at] - UInt8(ascii: "0"))
                    digits += 1
                    at += 1
                }
                return digits > 0 ? value : nil
            }
            while true {
                guard bytes[at] == UInt8(ascii: "w") else { return nil }
                at += 1
                guard let worker = number(), at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return nil }
                at += 1
                guard let count = number(), count > 0 else { return nil }
                if let workers, worker > workers + queueWorkers { return nil }
                total += count
                guard total <= 100_000_000 else { return nil }
                runs.append((worker, count))
                if at == bytes.count { break }
                guard bytes[at] == UInt8(ascii: ","), at + 1 < bytes.count else { return nil }
                at += 1
            }
            var decisions: [Int] = []
            decisions.reserveCapacity(total)
            for run in runs { decisions.append(contentsOf: repeatElement(run.worker, count: run.count)) }
            return decisions
        }
    }

    /// The decisions `text` encodes, read a run at a time, spaces around
    /// runs allowed; the error names the first run that is wrong.
    static func decodeRunByRun(_ text: String, workers: Int? = nil) throws(ParseError) -> [Int] {
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
