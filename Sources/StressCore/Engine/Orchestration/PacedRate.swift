/// The target rate of a paced run. In JSON: `{"opsPerSecond": 200000}` or
/// `{"fractionOfCapacity": 0.5}`.
package enum PacedRate: Sendable, Codable, Hashable {
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
