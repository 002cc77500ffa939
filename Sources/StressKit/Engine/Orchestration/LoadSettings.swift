/// How workers issue operations.
public enum LoadMode: String, Sendable, Codable {
    /// Each worker starts its next operation when the last ends (saturation).
    case closed
    /// Each worker follows a schedule of intended start times (open loop).
    case paced
}

/// The target rate of a paced run. In JSON: `{"opsPerSecond": 200000}` or
/// `{"fractionOfCapacity": 0.5}`.
public enum PacedRate: Sendable, Codable, Hashable {
    /// Operations per second over all workers.
    case perSecond(Double)
    /// A fraction of the closed-loop throughput the (untimed) warm-up achieved.
    case fractionOfCapacity(Double)

    private enum CodingKeys: String, CodingKey {
        case opsPerSecond, fractionOfCapacity
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let r = try c.decodeIfPresent(Double.self, forKey: .opsPerSecond) {
            self = .perSecond(r)
        } else {
            self = .fractionOfCapacity(try c.decode(Double.self, forKey: .fractionOfCapacity))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .perSecond(let r): try c.encode(r, forKey: .opsPerSecond)
        case .fractionOfCapacity(let f): try c.encode(f, forKey: .fractionOfCapacity)
        }
    }
}

/// The open/closed-loop choice of a trial (plan key `load`).
public struct LoadSettings: Sendable, Codable, Hashable {
    /// Closed or paced.
    public var mode: LoadMode
    /// The target rate (paced only).
    public var rate: PacedRate?
    /// Gaps between intended starts: fixed, or exponential (Poisson arrivals).
    public var poisson: Bool

    /// The closed loop.
    public static let closed = LoadSettings(mode: .closed, rate: nil, poisson: false)

    /// Settings.
    public init(mode: LoadMode, rate: PacedRate?, poisson: Bool) {
        self.mode = mode
        self.rate = rate
        self.poisson = poisson
    }
}

/// How well a paced run kept to its schedule.
public struct PacingReport: Sendable, Codable, Equatable {
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
