import Foundation

/// One broken invariant, as a worker or a final check saw it.
public struct ViolationSample: Sendable, Codable, Equatable {
    /// The worker that saw it; nil for final checks after all workers stopped.
    public var thread: Int?
    /// The operation (or `final-check`).
    public var operation: String
    /// The step inside the operation, when a step saw it.
    public var step: String?
    /// The worker's op number (0-based, warm-up included) when it saw it.
    public var opNumber: Int?
    /// What broke: the check's message, in words.
    public var message: String
    /// What kind of violation this is: nil for a failed invariant check,
    /// ``Kind/dataRace`` for a race ThreadSanitizer saw.
    public var kind: Kind?
    /// A data race's two accesses: the one TSan caught, then the earlier one
    /// it races with. Nil for an invariant check.
    public var accesses: [Access]?
    /// A data race's memory, as TSan describes it ("heap block of size 24
    /// allocated by main thread", "global 'flag'"), when it knows.
    public var location: String?

    /// A sample of one failed check.
    package init(thread: Int?, operation: String, step: String?, opNumber: Int?, message: String) {
        self.thread = thread
        self.operation = operation
        self.step = step
        self.opNumber = opNumber
        self.message = message
    }

    /// The kinds of violation besides a failed invariant check.
    public enum Kind: String, Sendable, Codable, Equatable {
        /// Two threads touched one memory location, at least one writing,
        /// with nothing ordering them (ThreadSanitizer's report).
        case dataRace = "data-race"
    }

    /// One side of a data race.
    public struct Access: Sendable, Codable, Equatable {
        /// True for a write (a modifying access), false for a read.
        public var write: Bool
        /// The worker that made it; nil for any other thread (``thread`` says which).
        public var worker: Int?
        /// The thread as TSan named it: `worker 2`, `main thread`, `thread T7`.
        public var thread: String
        /// The innermost frames first, demangled: `Counter.increment() at Counter.swift:12`.
        public var frames: [String]

        /// One side of a race.
        ///
        /// - Parameters:
        ///   - write: True for a write, false for a read.
        ///   - worker: The worker that made it; nil for any other thread.
        ///   - thread: The thread as TSan named it (`worker 2`, `main thread`).
        ///   - frames: The frames, innermost first.
        public init(write: Bool, worker: Int?, thread: String, frames: [String]) {
            self.write = write
            self.worker = worker
            self.thread = thread
            self.frames = frames
        }

        /// "write by worker 1 at Counter.swift:12".
        public var summary: String {
            let top = frames.first.map { " in \($0)" } ?? ""
            return "\(write ? "write" : "read") by \(thread)\(top)"
        }
    }

    /// A data race ThreadSanitizer reported: `accesses` the two racing
    /// accesses, `location` the memory when known. Shown as the worker of
    /// the first access (or after the run, when no worker made it).
    package static func dataRace(_ accesses: [Access], location: String?) -> ViolationSample {
        let message = "data race: " + accesses.map(\.summary).joined(separator: ", racing with a ")
        var sample = ViolationSample(thread: accesses.first?.worker, operation: "data-race", step: nil, opNumber: nil, message: message)
        sample.kind = .dataRace
        sample.accesses = accesses
        sample.location = location
        return sample
    }

    /// A data race's two stacks, for the first failure's text: a heading per
    /// access, then its frames; empty for an invariant check.
    public var stackLines: [String] {
        guard let accesses else { return [] }
        var lines: [String] = []
        for (i, a) in accesses.enumerated() {
            lines.append("\(i == 0 ? "" : "previous ")\(a.write ? "write" : "read") by \(a.thread):")
            lines += a.frames.map { "  " + $0 }
        }
        if let location { lines.append("location: \(location)") }
        return lines
    }

    /// One line for terminals: "thread 1, op #5123 transfer/debit: ...".
    public var summaryLine: String {
        var place = thread.map { "thread \($0)" } ?? "after the run"
        if let n = opNumber { place += ", op #\(n)" }
        // A data race's message says both threads; the place adds nothing.
        if kind == .dataRace { return message }
        return "\(place), \(operation)\(step.map { "/\($0)" } ?? ""): \(message)"
    }
}
