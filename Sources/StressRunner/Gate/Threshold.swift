import StressCore

/// One thing a plan says must hold for every cell of an experiment, such as
/// `p99 < 50us`, `ops_per_s > 2M` or `ops_per_s >= 0.9 * baseline`.
///
/// Made by ``ThresholdParser`` when the plan loads; evaluated per cell (all
/// repetitions of one experiment × strategy × threads) by ``ThresholdEvaluator``.
package struct Threshold: Sendable, Equatable, CustomStringConvertible {
    /// What is bounded.
    public var metric: GateMetric
    /// How the observed value must relate to the bound.
    public var comparison: Comparison
    /// The bound itself.
    public var bound: Bound
    /// The expression as the plan wrote it (for messages).
    public var expression: String

    /// A threshold.
    public init(metric: GateMetric, comparison: Comparison, bound: Bound, expression: String) {
        self.metric = metric
        self.comparison = comparison
        self.bound = bound
        self.expression = expression
    }

    /// The expression as written.
    public var description: String { expression }

    /// `<`, `<=`, `>`, `>=`, `==`.
    public enum Comparison: String, Sendable, Codable, CaseIterable {
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "=="

        /// Whether `observed` relates to `bound` this way.
        public func holds(_ observed: Double, _ bound: Double) -> Bool {
            switch self {
            case .less: return observed < bound
            case .lessOrEqual: return observed <= bound
            case .greater: return observed > bound
            case .greaterOrEqual: return observed >= bound
            case .equal: return observed == bound
            }
        }

        /// Whether some value in `range` relates to `bound` this way: for a
        /// bound relative to a baseline, the threshold fails only when the
        /// whole confidence interval of the ratio fails it.
        public func canHold(somewhereIn range: ClosedRange<Double>, _ bound: Double) -> Bool {
            switch self {
            case .less, .lessOrEqual: return holds(range.lowerBound, bound)
            case .greater, .greaterOrEqual: return holds(range.upperBound, bound)
            case .equal: return range.contains(bound)
            }
        }
    }

    /// A fixed value (in the metric's base unit: ns, ops/s or a count), or a
    /// multiple of the same cell's value in the baseline run.
    public enum Bound: Sendable, Equatable {
        /// An absolute value.
        case value(Double)
        /// `factor * baseline`.
        case baseline(factor: Double)
    }
}

extension Threshold: Codable {
    private enum CodingKeys: String, CodingKey { case expression, metric, comparison, value, baselineFactor }

    /// Decodes `{expression, metric, comparison, value | baselineFactor}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        expression = try c.decode(String.self, forKey: .expression)
        metric = try c.decode(GateMetric.self, forKey: .metric)
        comparison = try c.decode(Comparison.self, forKey: .comparison)
        if let factor = try c.decodeIfPresent(Double.self, forKey: .baselineFactor) {
            bound = .baseline(factor: factor)
        } else {
            bound = .value(try c.decode(Double.self, forKey: .value))
        }
    }

    /// Encodes the expression and its parsed parts (`value` in ns, ops/s or a
    /// count; or `baselineFactor`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(expression, forKey: .expression)
        try c.encode(metric, forKey: .metric)
        try c.encode(comparison, forKey: .comparison)
        switch bound {
        case .value(let v): try c.encode(v, forKey: .value)
        case .baseline(let f): try c.encode(f, forKey: .baselineFactor)
        }
    }
}
