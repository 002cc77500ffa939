/// A named, weighted operation: the unit the engine picks, times and counts.
public struct StressOperation<State: AnyObject & Sendable>: Sendable {
    /// The operation's name (unique within a workload), used in reports and final checks.
    public let name: String
    /// The relative weight with which a worker picks it; 0 disables it.
    public let weight: Double
    /// The steps, run in order.
    public let steps: [Step<State>]

    /// An operation made of `steps`, picked with relative `weight`.
    ///
    /// - Parameters:
    ///   - name: The operation's name, unique within the workload.
    ///   - weight: How often it is picked, relative to the other operations' weights.
    ///   - steps: Its steps, run in order.
    public init(_ name: String, weight: Double, steps: [Step<State>]) {
        self.name = name
        self.weight = weight
        self.steps = steps
    }
}

