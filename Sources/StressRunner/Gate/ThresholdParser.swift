import StressCore

/// A threshold expression that could not be read: what was expected, and where.
package struct ThresholdSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what was expected instead.
    public var message: String
    /// 1-based character position in the expression where the problem starts.
    public var position: Int

    /// An error.
    public init(_ message: String, at position: Int) {
        self.message = message
        self.position = position
    }

    /// The message.
    public var description: String { message }
}

/// Reads threshold expressions. The grammar is small enough that a hand-written
/// parser gives better messages than any generator would:
///
/// ```
/// threshold := metric comparison bound
/// metric    := p50 | p90 | p99 | p99.9 | p999 | p99.99 | p9999 | min | max | mean
///            | ops_per_s | violations | failures
/// comparison:= < | <= | > | >= | ==
/// bound     := quantity | factor '*' 'baseline' | 'baseline' ['*' factor]
/// quantity  := a time with its unit for latencies (50us, 2ms, 800ns),
///              a rate for ops_per_s (2M, 150k, 2000000), a whole number for counts
/// factor    := a positive number (0.9) or a percentage (90%)
/// ```
package enum ThresholdParser {
    /// Parses `text`, or throws what was expected where.
    public static func parse(_ text: String) throws(ThresholdSyntaxError) -> Threshold {
        var tokens = Tokens(text)
        let expression = text.trimmingSpaces
        guard let first = tokens.next() else {
            throw ThresholdSyntaxError("expected a threshold such as 'p99 < 50us' or 'ops_per_s >= 0.9 * baseline', found nothing", at: 1)
        }
        let metric = try parseMetric(first)
        let comparison = try parseComparison(tokens.next(), after: first, text: text)
        guard let boundToken = tokens.next() else {
            throw ThresholdSyntaxError("expected a value after '\(comparison.rawValue)' (\(example(for: metric))), found the end", at: text.count + 1)
        }
        let bound = try parseBound(boundToken, metric: metric, tokens: &tokens, text: text)
        if let extra = tokens.next() {
            if extra.text == "baseline" {
                throw ThresholdSyntaxError("expected '*' between the factor and 'baseline' (write '\(boundToken.text) * baseline')", at: extra.position)
            }
            throw ThresholdSyntaxError("unexpected '\(extra.text)' after the bound; write one comparison per threshold", at: extra.position)
        }
        return Threshold(metric: metric, comparison: comparison, bound: bound, expression: expression)
    }

    /// Every metric spelling, for messages.
    static var metricList: String { GateMetric.allCases.map(\.rawValue).joined(separator: ", ") }

    private static func parseMetric(_ token: Token) throws(ThresholdSyntaxError) -> GateMetric {
        guard token.isWord else {
            throw ThresholdSyntaxError("expected a metric first (one of \(metricList)), found '\(token.text)'", at: token.position)
        }
        guard let metric = GateMetric(spelling: token.text) else {
            let spellings = GateMetric.allCases.flatMap(\.spellings)
            throw ThresholdSyntaxError("unknown metric '\(token.text)'" + PlanReader.suggestion(for: token.text, among: spellings)
                                       + " (expected one of \(metricList))", at: token.position)
        }
        return metric
    }

    private static func parseComparison(_ token: Token?, after metric: Token, text: String) throws(ThresholdSyntaxError) -> Threshold.Comparison {
        let expected = "a comparison (<, <=, >, >=, ==)"
        guard let token else {
            throw ThresholdSyntaxError("expected \(expected) after '\(metric.text)', found the end", at: text.count + 1)
        }
        if let c = Threshold.Comparison(rawValue: token.text) { return c }
        if token.text == "=" {
            throw ThresholdSyntaxError("'=' is not a comparison; write '==' for equality", at: token.position)
        }
        throw ThresholdSyntaxError("expected \(expected) after '\(metric.text)', found '\(token.text)'", at: token.position)
    }

    private static func parseBound(
        _ token: Token, metric: GateMetric, tokens: inout Tokens, text: String
    ) throws(ThresholdSyntaxError) -> Threshold.Bound {
        guard token.isWord else {
            throw ThresholdSyntaxError("expected a value (\(example(for: metric))), found '\(token.text)'", at: token.position)
        }
        // `baseline`, `baseline * f`, `f * baseline`.
        if token.text == "baseline" {
            try requireBaselineMetric(metric, at: token.position)
            guard let star = tokens.peek(), star.text == "*" else { return .baseline(factor: 1) }
            _ = tokens.next()
            guard let factor = tokens.next() else {
                throw ThresholdSyntaxError("expected a factor after 'baseline *' (such as 0.9 or 90%), found the end", at: text.count + 1)
            }
            return .baseline(factor: try parseFactor(factor))
        }
        if let star = tokens.peek(), star.text == "*" {
            _ = tokens.next()
            let factor = try parseFactor(token)
            guard let word = tokens.next() else {
                throw ThresholdSyntaxError("expected 'baseline' after '\(token.text) *', found the end", at: text.count + 1)
            }
            guard word.text == "baseline" else {
                throw ThresholdSyntaxError("expected 'baseline' after '\(token.text) *', found '\(word.text)'; only a baseline can be scaled", at: word.position)
            }
            try requireBaselineMetric(metric, at: word.position)
            return .baseline(factor: factor)
        }
        // A number and its unit may be written apart: `50 us`.
        var quantity = token.text
        if token.text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "_" }), let unit = tokens.peek(), unit.isWord,
           unit.text != "baseline", unit.text.first?.isLetter == true {
            quantity += tokens.next()!.text
        }
        return .value(try parseQuantity(quantity, metric: metric, at: token.position))
    }

    private static func requireBaselineMetric(_ metric: GateMetric, at position: Int) throws(ThresholdSyntaxError) {
        guard metric.isPerformance else {
            throw ThresholdSyntaxError("'\(metric.rawValue)' cannot be bounded by the baseline; baseline bounds are for latencies and ops_per_s (write e.g. '\(metric.rawValue) == 0')", at: position)
        }
    }

    private static func parseFactor(_ token: Token) throws(ThresholdSyntaxError) -> Double {
        var text = token.text
        var scale = 1.0
        if text.hasSuffix("%") {
            text.removeLast()
            scale = 0.01
        }
        guard token.isWord, let v = Double(text.replacingUnderscores), v.isFinite, v > 0 else {
            throw ThresholdSyntaxError("expected a positive factor for the baseline (such as 0.9 or 90%), found '\(token.text)'", at: token.position)
        }
        return v * scale
    }

    private static func parseQuantity(_ text: String, metric: GateMetric, at position: Int) throws(ThresholdSyntaxError) -> Double {
        let name = metric.rawValue
        switch metric.kind {
        case .latency:
            if Double(text.replacingUnderscores) != nil {
                throw ThresholdSyntaxError("'\(text.clipped)' needs a time unit for \(name): write \(text)ns, \(text)us, \(text)ms or \(text)s", at: position)
            }
            guard let ns = Quantities.nanoseconds(from: text) else {
                throw ThresholdSyntaxError("expected a time such as 50us, 2ms or 800ns for \(name), found '\(text.clipped)'", at: position)
            }
            return Double(ns)
        case .rate:
            if let v = rate(text) { return v }
            if Quantities.nanoseconds(from: text) != nil {
                throw ThresholdSyntaxError("'\(text.clipped)' is a time, but \(name) is a rate in operations per second: write e.g. 2M, 150k or 2000000", at: position)
            }
            throw ThresholdSyntaxError("expected a rate such as 2M, 150k or 2000000 for \(name), found '\(text.clipped)'", at: position)
        case .count:
            guard let n = Quantities.count(from: text), n >= 0 else {
                throw ThresholdSyntaxError("expected a whole number for \(name), found '\(text.clipped)'", at: position)
            }
            return Double(n)
        }
    }

    /// `2M`, `2.5M`, `150k`, `1G`, `2000000`: operations per second.
    private static func rate(_ text: String) -> Double? {
        var t = text.replacingUnderscores
        var scale = 1.0
        if let last = t.last, let s = ["k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9][String(last)] {
            scale = s
            t.removeLast()
        }
        guard let v = Double(t), v.isFinite, v >= 0 else { return nil }
        return v * scale
    }

    private static func example(for metric: GateMetric) -> String {
        switch metric.kind {
        case .latency: return "a time such as 50us, or 1.1 * baseline"
        case .rate: return "a rate such as 2M, or 0.9 * baseline"
        case .count: return "a whole number such as 0"
        }
    }

    // MARK: - Tokens

    struct Token {
        var text: String
        /// 1-based character position.
        var position: Int
        var isWord: Bool
    }

    /// Words (letters, digits, `.`, `_`, `%`, `µ`) and operators (`<`, `<=`, `>`,
    /// `>=`, `==`, `=`, `*`, and any other single symbol, so it can be named in a message).
    struct Tokens {
        private let chars: [Character]
        private var index = 0
        private var lookahead: Token?

        init(_ text: String) { chars = Array(text) }

        mutating func peek() -> Token? {
            if lookahead == nil { lookahead = scan() }
            return lookahead
        }

        mutating func next() -> Token? {
            if let t = lookahead {
                lookahead = nil
                return t
            }
            return scan()
        }

        private static func isWordCharacter(_ c: Character) -> Bool {
            c.isLetter || c.isNumber || c == "." || c == "_" || c == "%"
        }

        private mutating func scan() -> Token? {
            while index < chars.count, chars[index].isWhitespace { index += 1 }
            guard index < chars.count else { return nil }
            let start = index
            if Self.isWordCharacter(chars[index]) {
                while index < chars.count, Self.isWordCharacter(chars[index]) { index += 1 }
                return Token(text: String(chars[start..<index]), position: start + 1, isWord: true)
            }
            let c = chars[index]
            index += 1
            if "<>=!".contains(c), index < chars.count, chars[index] == "=" {
                index += 1
                return Token(text: String(c) + "=", position: start + 1, isWord: false)
            }
            return Token(text: String(c), position: start + 1, isWord: false)
        }
    }
}
