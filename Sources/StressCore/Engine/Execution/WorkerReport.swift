/// What a worker hands back when it stops. Its histograms are the worker's
/// own, in clock ticks; whoever merges the reports frees them
/// (``freeHistograms()``).
struct WorkerReport: Sendable {
    var histogram: TickHistogram
    var acquireHistogram: TickHistogram
    /// Nil when the worker timed fewer than two operations.
    var maxStallNs: UInt64?
    var allocatedBytes: UInt64?
    var responseHistogram: TickHistogram
    var maxLagNs: UInt64
    var firstViolationAt: UInt64?
    var measuredCounts: [Int]
    var allCounts: [Int]
    var warmupOps: Int
    var violationCount: Int
    var samples: [ViolationSample]
    var tally: Tally
    var startNs: UInt64
    var endNs: UInt64
    /// Operations this worker timed (the sample behind its histogram).
    var timedOps: Int
    /// A scenario's worker: the outcomes it counted. Not freed with the
    /// histograms: the scenario's merge reads every table after the common
    /// merge, and frees them itself (``OutcomeTable/mergeAndFree(_:grade:)``).
    var outcomes: OutcomeTable?
    /// The loop the measured window ran in.
    var measuredLoop: MeasuredLoopKind

    var measuredOps: Int { measuredCounts.reduce(0, &+) }

    /// Frees the histograms once they are merged (not the outcome table:
    /// see ``outcomes``).
    func freeHistograms() {
        histogram.deallocate()
        acquireHistogram.deallocate()
        responseHistogram.deallocate()
    }
}
