/// Parsing of the human quantities plans use: durations (`500ms`, `1.5s`) and
/// counts (`100k`, `2M`).
package enum Quantities {
    private static let durationUnits: [(String, Double)] = [
        ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("min", 60e9), ("h", 3600e9),
    ]

    /// Nanoseconds of `duration`: negative durations are 0, and durations past
    /// what a `UInt64` holds are its maximum (Swift callers give `Duration`s;
    /// the engine counts nanoseconds).
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflowed) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflowed ? .max : sum
    }

    /// Nanoseconds from `"250ms"`, `"1.5s"`, `"100us"`, `"2m"`; a bare number is
    /// seconds. Nil when the text is not a duration or does not fit 64 bits
    /// (see `durationLimitProblem(_:)` for the limit plans and options keep to).
    public static func nanoseconds(from text: String) -> UInt64? {
        guard let ns = exactNanoseconds(from: text), ns < 1.8e19 else { return nil }
        return UInt64(ns.rounded())
    }

    /// The nanoseconds a duration's text says, however large; nil when it is not a duration.
    static func exactNanoseconds(from text: String) -> Double? {
        let t = text.trimmingSpaces
        guard !t.isEmpty else { return nil }
        let split = t.firstIndex { !($0.isNumber || $0 == "." || $0 == "_") } ?? t.endIndex
        let number = String(t[..<split]).replacingUnderscores
        let unit = String(t[split...]).trimmingSpaces
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        let scale: Double
        if unit.isEmpty { scale = 1e9 } else {
            guard let found = durationUnits.first(where: { $0.0 == unit }) else { return nil }
            scale = found.1
        }
        let ns = value * scale
        return ns.isFinite ? ns : nil
    }

    /// A duration from user input held to ``PlanDefaults/maxDurationNs``: the
    /// nanoseconds, or why the text is not usable.
    public static func boundedNanoseconds(from text: String) -> Result<UInt64, DurationProblem> {
        guard let ns = exactNanoseconds(from: text) else { return .failure(.notADuration) }
        guard ns <= Double(PlanDefaults.maxDurationNs) else {
            return .failure(.tooLong("\(text.trimmingSpaces) is too long: durations are at most 168h (7 days)"))
        }
        return .success(UInt64(ns.rounded()))
    }

    /// Why a duration's text was refused.
    public enum DurationProblem: Error, Sendable, Equatable {
        /// Not a duration at all.
        case notADuration
        /// Longer than ``PlanDefaults/maxDurationNs``; the message says so.
        case tooLong(String)
    }

    /// A count from `"5000"`, `"100_000"`, `"100k"`, `"2M"`, `"1G"`. Nil otherwise
    /// (including negative and fractional results).
    public static func count(from text: String) -> Int? {
        var t = text.trimmingSpaces.replacingUnderscores
        var scale = 1
        if let last = t.last, let s = ["k": 1_000, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000][String(last)] {
            scale = s
            t.removeLast()
        }
        if let v = Int(t) {
            let (r, overflow) = v.multipliedReportingOverflow(by: scale)
            return overflow ? nil : r
        }
        if scale > 1, let d = Double(t), d.isFinite {
            let r = d * Double(scale)
            return r == r.rounded() && abs(r) < 9e18 ? Int(r) : nil
        }
        return nil
    }

    /// A short human form of a duration: `250ms`, `1.5s`, `80ns`.
    public static func format(nanoseconds ns: UInt64) -> String {
        switch ns {
        case ..<1_000: return "\(ns)ns"
        case ..<1_000_000: return trim(Double(ns) / 1e3) + "us"
        case ..<1_000_000_000: return trim(Double(ns) / 1e6) + "ms"
        case ..<600_000_000_000: return trim(Double(ns) / 1e9) + "s"
        case ..<3_600_000_000_000: return trim(Double(ns) / 60e9) + "m"
        default: return trim(Double(ns) / 3600e9) + "h"
        }
    }

    private static func trim(_ x: Double) -> String {
        let r = (x * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}

extension String {
    package var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }

    package var replacingUnderscores: String { filter { $0 != "_" } }
}
