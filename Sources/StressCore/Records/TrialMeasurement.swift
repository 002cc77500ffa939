import Foundation

/// What was measured in a trial that ran to the end.
public struct TrialMeasurement: Sendable, Codable, Equatable {
    // Measured wall time in nanoseconds (the JSON's `elapsedNs`); ``elapsed`` is the public face.
    package var elapsedNanoseconds: Int
    /// Operations completed in the measured window, all workers.
    public var totalOps: Int
    /// `totalOps / elapsed`.
    public var opsPerSecond: Double
    /// Operations completed in the measured window by each worker.
    public var perThreadOps: [Int]
    /// Operations completed in the measured window, by operation name.
    public var operations: [String: Int]
    /// Operations run during warm-up (not timed, not in the figures above).
    public var warmupOps: Int
    /// What the latency figures are: `service-time` is the time from an op's start
    /// to its end on the worker that ran it (closed loop: each worker starts its
    /// next op when the last one ends).
    public var latencyKind: String
    /// Per-op latency percentiles; nil when no op was timed.
    public var latency: LatencySummary?
    /// The merged latency histogram as `[value_ns, count]` buckets.
    public var histogram: [[UInt64]]
    /// Figures the workload reports about itself (``Workload/metrics(_:)``).
    public var workloadMetrics: [String: Double]
    /// How operations were timed.
    package var timing: TimingInfo?
    /// Time spent waiting to acquire (lock, queue entry, actor hop), per timed
    /// operation, summed over its guarded steps; nil when no step waited.
    public var acquireLatency: LatencySummary?
    // Per worker, in nanoseconds (the JSON's `maxStallNs`); ``longestGaps`` is the public face.
    package var longestGapNanoseconds: [Int]?
    /// How evenly the workers shared the work (nil for one worker).
    package var fairness: Fairness?
    /// CPU, context switches and memory of the trial process in the window.
    package var resources: ResourceUsage?
    /// The allocator and what it counted (figures nil where unavailable).
    package var allocator: AllocatorMetrics?
    /// Paced runs: the latency a caller with this arrival schedule would see,
    /// from each operation's intended start to its end (free of coordinated
    /// omission). `latency` stays the service time.
    public var responseLatency: LatencySummary?
    /// Paced runs: target and achieved rate, largest lag, whether it kept up.
    package var pacing: PacingReport?
    /// The merged acquire-wait histogram as `[value_ns, count]` buckets (so
    /// repetitions can be merged); nil when no step waited.
    public var acquireHistogram: [[UInt64]]?
    /// Paced runs: the merged response-time histogram as `[value_ns, count]` buckets.
    public var responseHistogram: [[UInt64]]?
    /// A scenario's trial: rounds completed per second of the measured window
    /// (`opsPerSecond` counts each role's run as an operation).
    public var roundsPerSecond: Double?

    /// The results' JSON keys: the nanosecond fields keep the names they
    /// had when they were public integers.
    private enum CodingKeys: String, CodingKey {
        case elapsedNanoseconds = "elapsedNs"
        case totalOps
        case opsPerSecond
        case perThreadOps
        case operations
        case warmupOps
        case latencyKind
        case latency
        case histogram
        case workloadMetrics
        case timing
        case acquireLatency
        case longestGapNanoseconds = "maxStallNs"
        case fairness
        case resources
        case allocator
        case responseLatency
        case pacing
        case acquireHistogram
        case responseHistogram
        case roundsPerSecond
    }
}

extension TrialMeasurement {
    /// Measured wall time: from the start barrier's release to the last worker's end.
    public var elapsed: Duration { .nanoseconds(elapsedNanoseconds) }
    /// Per worker, the longest time between two timed completions: a stall that
    /// closed-loop service times hide (a worker descheduled between operations).
    /// With sampled timing it spans the untimed operations between two timed
    /// ones too. Nil when no operation was timed.
    public var longestGaps: [Duration]? { longestGapNanoseconds?.map { .nanoseconds($0) } }
}
