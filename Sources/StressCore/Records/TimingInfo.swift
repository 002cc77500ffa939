import Foundation

/// How a trial timed its operations, as recorded in its result.
package struct TimingInfo: Sendable, Codable, Equatable {
    /// `tsc` or `monotonic` (what `auto` resolved to).
    public var clock: String
    /// One operation in this many was timed (1: every one), over all workers:
    /// measured operations divided by timed ones, rounded. Each timed op counts
    /// as its worker's interval in the histogram.
    public var sampleEvery: Int
    /// The measured cost of one clock reading on this machine, in ns.
    public var clockReadNs: Double
    /// `auto` (each worker picked its interval from what timing cost its first operations),
    /// `fixed` (the plan's `timing.sample`) or `paced` (a paced load times every
    /// operation). Nil in results written before it existed.
    public var sampling: String?
    /// Operations actually timed: the observations behind the percentiles.
    /// With `auto`, the histogram's count can fall short of the measured
    /// operations by the probe's untimed ones (at most 256 per worker), which
    /// no timed operation stands for.
    public var timedOps: Int?
}
