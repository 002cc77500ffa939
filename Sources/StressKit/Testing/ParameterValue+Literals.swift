import StressCore
import StressRunner

/// Parameter values written as literals, as a test gives them:
/// `StressTest(workload: "counter", parameters: ["variant": "split-rmw", "read_ratio": 0.5])`.
extension ParameterValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    /// `.integer(value)`.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// `.number(value)`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// `.text(value)`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `.flag(value)`.
    public init(booleanLiteral value: Bool) { self = .flag(value) }
}
