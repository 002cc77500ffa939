/// How well a paced run kept to its schedule.
package struct PacingReport: Sendable, Codable, Equatable {
    /// The rate asked for, over all workers.
    public var targetOpsPerSecond: Double
    /// The rate achieved.
    public var achievedOpsPerSecond: Double
    /// The largest delay of an operation's actual start behind its intended start.
    public var maxLagNs: Int
    /// False when the workers could not keep up (achieved < 97% of target):
    /// then the response times say so, and the figures are those of an overloaded system.
    public var keptUp: Bool
    /// The closed-loop throughput the calibration run found, when the rate was a fraction of it.
    public var calibratedCapacity: Double?
}
