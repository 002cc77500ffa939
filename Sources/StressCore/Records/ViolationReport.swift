import Foundation

/// All violations of a trial: the exact count and the first few in full.
public struct ViolationReport: Sendable, Codable, Equatable {
    /// How many invariant checks failed, over all workers and final checks.
    public var count: Int
    /// The first few (per worker, then final checks), in full.
    public var samples: [ViolationSample]
    // In nanoseconds, as the results' JSON has it; ``firstAfter`` is the public face.
    package var firstAfterNanoseconds: Int?

    /// The report of a trial in which no check failed.
    public static let none = ViolationReport(count: 0, samples: [])

    /// A report of `count` failed checks, of which `samples` are kept in full.
    package init(count: Int, samples: [ViolationSample], firstAfterNs: Int? = nil) {
        self.count = count
        self.samples = samples
        self.firstAfterNanoseconds = firstAfterNs
    }

    /// The results' JSON keys: the nanosecond fields keep the names they
    /// had when they were public integers.
    private enum CodingKeys: String, CodingKey {
        case count
        case samples
        case firstAfterNanoseconds = "firstAfterNs"
    }
}

extension ViolationReport {
    /// Time from the start of the trial (warm-up included) to the first
    /// violation a worker saw; nil when only final checks (or nothing) failed.
    public var firstAfter: Duration? { firstAfterNanoseconds.map { .nanoseconds($0) } }
}
