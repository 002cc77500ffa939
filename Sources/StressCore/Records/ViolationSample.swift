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

    /// A sample of one failed check.
    package init(thread: Int?, operation: String, step: String?, opNumber: Int?, message: String) {
        self.thread = thread
        self.operation = operation
        self.step = step
        self.opNumber = opNumber
        self.message = message
    }

    /// One line for terminals: "thread 1, op #5123 transfer/debit: ...".
    public var summaryLine: String {
        var place = thread.map { "thread \($0)" } ?? "after the run"
        if let n = opNumber { place += ", op #\(n)" }
        return "\(place), \(operation)\(step.map { "/\($0)" } ?? ""): \(message)"
    }
}
