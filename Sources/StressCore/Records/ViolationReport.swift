import Foundation

/// All violations of a trial: the exact count and the first few in full.
public struct ViolationReport: Sendable, Codable, Equatable {
    /// How many invariant checks failed, over all workers and final checks.
    public var count: Int
    /// The first few (per worker, then final checks), in full.
    public var samples: [ViolationSample]
    /// Time from the start of the trial (warm-up included) to the first
    /// violation a worker saw; nil when only final checks (or nothing) failed.
    public var firstAfterNs: Int?

    /// No violations.
    public static let none = ViolationReport(count: 0, samples: [])

    /// A report.
    public init(count: Int, samples: [ViolationSample], firstAfterNs: Int? = nil) {
        self.count = count
        self.samples = samples
        self.firstAfterNs = firstAfterNs
    }
}
