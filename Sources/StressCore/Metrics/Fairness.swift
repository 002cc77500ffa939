/// How evenly the workers shared the work.
package struct Fairness: Sendable, Codable, Equatable {
    /// Coefficient of variation of per-worker op counts (stddev / mean; 0 = even).
    public var coefficientOfVariation: Double
    /// Jain's fairness index, (Σx)² / (n·Σx²): 1 = perfectly even, 1/n = one worker did everything.
    public var jainIndex: Double
    /// The worker that did less than a tenth of the mean, if any (the least one).
    public var starvedThread: Int?

    /// Fairness of these per-worker counts; nil for fewer than two workers or no work.
    public init?(perThreadOps counts: [Int]) {
        guard counts.count >= 2 else { return nil }
        let xs = counts.map(Double.init)
        let sum = xs.reduce(0, +)
        guard sum > 0 else { return nil }
        let mean = sum / Double(xs.count)
        let variance = xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(xs.count)
        coefficientOfVariation = variance.squareRoot() / mean
        jainIndex = sum * sum / (Double(xs.count) * xs.reduce(0) { $0 + $1 * $1 })
        let least = xs.indices.min { xs[$0] < xs[$1] }!
        starvedThread = xs[least] < mean / 10 ? least : nil
    }
}
