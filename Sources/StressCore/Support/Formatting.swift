import Foundation

/// Short human forms for tables.
package enum Formatting {
    /// `45ns`, `1.23µs`, `4.5ms`, `2.1s`.
    public static func latency(_ ns: Int) -> String {
        let x = Double(ns)
        switch ns {
        case ..<1_000: return "\(ns)ns"
        case ..<1_000_000: return digits(x / 1e3) + "µs"
        case ..<1_000_000_000: return digits(x / 1e6) + "ms"
        default: return digits(x / 1e9) + "s"
        }
    }

    /// `950`, `12.3k`, `4.56M`, `1.2G`.
    public static func rate(_ perSecond: Double) -> String {
        switch perSecond {
        case ..<1_000: return String(Int(perSecond.rounded()))
        case ..<1_000_000: return digits(perSecond / 1e3) + "k"
        case ..<1_000_000_000: return digits(perSecond / 1e6) + "M"
        default: return digits(perSecond / 1e9) + "G"
        }
    }

    /// `950`, `12.3k`, `4.56M`: a count, shortened as ``rate(_:)`` does.
    public static func count(_ n: Int) -> String { rate(Double(n)) }

    /// Three significant digits, without trailing zeros.
    package static func digits(_ x: Double) -> String {
        let decimals = x >= 100 ? 0 : (x >= 10 ? 1 : 2)
        var s = String(format: "%.\(decimals)f", x)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s
    }

    /// Left-aligned text columns separated by two spaces; numeric columns right-aligned.
    package static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int>) -> String {
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                let pad = String(repeating: " ", count: widths[i] - c.count)
                return rightAligned.contains(i) ? pad + c : c + pad
            }.joined(separator: "  ").trimmingTrailingSpaces
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }
}


extension String {
    var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}

extension Formatting {
    /// `10%`, `2.5%`.
    public static func percent(_ fraction: Double) -> String { digits(fraction * 100) + "%" }

    /// A p-value with two significant digits: `0.0079`, `0.31`, `1`.
    public static func pValue(_ p: Double) -> String {
        guard p > 0 else { return "0" }
        guard p < 1 else { return "1" }
        return String(format: "%.2g", p)
    }

    /// A ratio with its interval: `0.81 [0.78, 0.84]`.
    public static func ratio(_ r: Double?, _ low: Double?, _ high: Double?) -> String {
        guard let r else { return "-" }
        let f = { (x: Double) in String(format: "%.3f", x) }
        guard let low, let high else { return f(r) }
        return "\(f(r)) [\(f(low)), \(f(high))]"
    }
}
