/// The open/closed-loop choice of a trial (plan key `load`).
package struct LoadSettings: Sendable, Codable, Hashable {
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
