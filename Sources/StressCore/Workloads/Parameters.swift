/// A workload parameter's value as it appears in a plan and in result records.
///
/// Equality is by value: `.integer(2)` equals `.number(2.0)`, because JSON does not
/// keep the difference and a record read back must equal the one written.
public enum ParameterValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A whole number (`threads: 4`, `accounts: 16`).
    case integer(Int)
    /// A number with a fraction (`ratio: 0.25`).
    case number(Double)
    /// A word or a choice (`mode: fifo`).
    case text(String)
    /// True or false (`fair: true`).
    case flag(Bool)

    public static func == (a: ParameterValue, b: ParameterValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.integer(let x), .number(let y)), (.number(let y), .integer(let x)): return Double(x) == y
        case (.text(let x), .text(let y)): return x == y
        case (.flag(let x), .flag(let y)): return x == y
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .integer(let v): hasher.combine(Double(v))
        case .number(let v): hasher.combine(v)
        case .text(let v): hasher.combine(v)
        case .flag(let v): hasher.combine(v)
        }
    }

    public var description: String {
        switch self {
        case .integer(let v): return String(v)
        case .number(let v): return String(v)
        case .text(let v): return v
        case .flag(let v): return String(v)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Bool.self) { self = .flag(v) }
        else if let v = try? c.decode(Int.self) { self = .integer(v) }
        else if let v = try? c.decode(Double.self) { self = .number(v) }
        else { self = .text(try c.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .integer(let v): try c.encode(v)
        case .number(let v): try c.encode(v)
        case .text(let v): try c.encode(v)
        case .flag(let v): try c.encode(v)
        }
    }
}

/// The declaration of one workload parameter: its name, type, range and default.
/// The plan loader validates every value against it before anything runs, and
/// `stressbench list` prints it.
public struct ParameterSpec: Sendable {
    /// The kind of value a parameter takes.
    public enum Kind: Sendable {
        /// A whole number within a closed range.
        case integer(ClosedRange<Int>)
        /// A real number within a closed range.
        case number(ClosedRange<Double>)
        /// One of a fixed set of words.
        case choice([String])
        /// `true` or `false`.
        case flag
    }

    /// The key used in a plan's `parameters` mapping.
    public let name: String
    /// One line saying what the parameter controls.
    public let summary: String
    /// Its type and range.
    public let kind: Kind
    /// The value used when a plan does not set it.
    public let defaultValue: ParameterValue

    /// An integer parameter.
    ///
    /// - Parameters:
    ///   - name: The parameter's name in plans.
    ///   - summary: One line saying what it sets.
    ///   - value: The value when the plan gives none.
    ///   - range: The values allowed.
    /// - Returns: The parameter's declaration.
    public static func integer(_ name: String, _ summary: String, default value: Int, range: ClosedRange<Int>) -> ParameterSpec {
        ParameterSpec(name: name, summary: summary, kind: .integer(range), defaultValue: .integer(value))
    }

    /// A real-number parameter.
    ///
    /// - Parameters:
    ///   - name: The parameter's name in plans.
    ///   - summary: One line saying what it sets.
    ///   - value: The value when the plan gives none.
    ///   - range: The values allowed.
    /// - Returns: The parameter's declaration.
    public static func number(_ name: String, _ summary: String, default value: Double, range: ClosedRange<Double>) -> ParameterSpec {
        ParameterSpec(name: name, summary: summary, kind: .number(range), defaultValue: .number(value))
    }

    /// A parameter that takes one of `choices`.
    ///
    /// - Parameters:
    ///   - name: The parameter's name in plans.
    ///   - summary: One line saying what it sets.
    ///   - value: The choice when the plan gives none.
    ///   - choices: The words allowed.
    /// - Returns: The parameter's declaration.
    public static func choice(_ name: String, _ summary: String, default value: String, choices: [String]) -> ParameterSpec {
        ParameterSpec(name: name, summary: summary, kind: .choice(choices), defaultValue: .text(value))
    }

    /// A boolean parameter.
    ///
    /// - Parameters:
    ///   - name: The parameter's name in plans.
    ///   - summary: One line saying what it sets.
    ///   - value: The value when the plan gives none.
    /// - Returns: The parameter's declaration.
    public static func flag(_ name: String, _ summary: String, default value: Bool) -> ParameterSpec {
        ParameterSpec(name: name, summary: summary, kind: .flag, defaultValue: .flag(value))
    }

    /// A human description of the type and range, for `list` and error messages.
    public var typeDescription: String {
        switch kind {
        case .integer(let r): return "integer \(r.lowerBound)...\(r.upperBound)"
        case .number(let r): return "number \(r.lowerBound)...\(r.upperBound)"
        case .choice(let c): return "one of " + c.joined(separator: ", ")
        case .flag: return "true or false"
        }
    }
}

/// An error a workload raises from `init(parameters:)`; the plan loader reports it
/// at `experiments[i].parameters.<name>`.
public struct WorkloadParameterError: Error, Sendable, CustomStringConvertible {
    /// The offending parameter (nil when the problem is the combination).
    public let parameter: String?
    /// What is wrong, in words.
    public let message: String

    /// An error about `parameter` (or about the whole set when nil).
    ///
    /// - Parameters:
    ///   - parameter: The parameter at fault, or nil for a combination of them.
    ///   - message: What is wrong, in words.
    public init(parameter: String?, _ message: String) {
        self.parameter = parameter
        self.message = message
    }

    public var description: String {
        parameter.map { "parameter '\($0)': \(message)" } ?? message
    }
}

/// A workload's validated parameter values, every declared parameter present
/// (the plan's value, or the default).
public struct WorkloadParameters: Sendable, Hashable, Codable {
    /// The values by parameter name.
    public private(set) var values: [String: ParameterValue]

    /// Parameters with the given values (not validated; the plan loader validates).
    ///
    /// - Parameter values: The values, by parameter name.
    public init(_ values: [String: ParameterValue] = [:]) { self.values = values }

    /// Decodes a plain `{name: value}` object.
    public init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: ParameterValue].self)
    }

    /// Encodes as a plain `{name: value}` object.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(values)
    }

    /// The defaults of `specs`, overridden by `overrides`.
    ///
    /// - Parameters:
    ///   - specs: The declared parameters, whose defaults fill in what `overrides` leaves out.
    ///   - overrides: The values given, by parameter name.
    public init(defaultsOf specs: [ParameterSpec], overrides: [String: ParameterValue] = [:]) {
        var v: [String: ParameterValue] = [:]
        for spec in specs { v[spec.name] = spec.defaultValue }
        for (k, x) in overrides { v[k] = x }
        values = v
    }

    /// The integer parameter `name`.
    ///
    /// - Parameter name: The parameter's name.
    /// - Returns: Its value.
    /// - Throws: ``WorkloadParameterError`` when it is missing or not a whole number.
    public func integer(_ name: String) throws(WorkloadParameterError) -> Int {
        switch values[name] {
        case .integer(let v): return v
        case .number(let v) where v == v.rounded(): return Int(v)
        case nil: throw WorkloadParameterError(parameter: name, "is not declared by this workload")
        case let other?: throw WorkloadParameterError(parameter: name, "expected an integer, found \(other)")
        }
    }

    /// The real-number parameter `name`.
    ///
    /// - Parameter name: The parameter's name.
    /// - Returns: Its value (a whole number converted).
    /// - Throws: ``WorkloadParameterError`` when it is missing or not a number.
    public func number(_ name: String) throws(WorkloadParameterError) -> Double {
        switch values[name] {
        case .number(let v): return v
        case .integer(let v): return Double(v)
        case nil: throw WorkloadParameterError(parameter: name, "is not declared by this workload")
        case let other?: throw WorkloadParameterError(parameter: name, "expected a number, found \(other)")
        }
    }

    /// The word parameter `name`.
    ///
    /// - Parameter name: The parameter's name.
    /// - Returns: Its value.
    /// - Throws: ``WorkloadParameterError`` when it is missing or not text.
    public func text(_ name: String) throws(WorkloadParameterError) -> String {
        switch values[name] {
        case .text(let v): return v
        case nil: throw WorkloadParameterError(parameter: name, "is not declared by this workload")
        case let other?: return other.description
        }
    }

    /// The boolean parameter `name`.
    ///
    /// - Parameter name: The parameter's name.
    /// - Returns: Its value.
    /// - Throws: ``WorkloadParameterError`` when it is missing or not true or false.
    public func flag(_ name: String) throws(WorkloadParameterError) -> Bool {
        switch values[name] {
        case .flag(let v): return v
        case nil: throw WorkloadParameterError(parameter: name, "is not declared by this workload")
        case let other?: throw WorkloadParameterError(parameter: name, "expected true or false, found \(other)")
        }
    }

    /// `name=value` pairs sorted by name, for CSV cells and trial labels.
    public var compactDescription: String {
        values.keys.sorted().map { "\($0)=\(values[$0]!)" }.joined(separator: ";")
    }
}
