import Yams
import StressCore

/// The plan keys of the CI gate: `thresholds` (at the top and in experiments)
/// and `gate` (baseline comparison settings).
///
/// ```yaml
/// thresholds: ["p99 < 50us", "ops_per_s >= 0.9 * baseline"]
/// gate: { tolerance: 10%, confidence: 95%, metric: ops_per_s, min_samples: 5 }
/// ```
extension PlanLoader {
    static let gateKeys = ["tolerance", "confidence", "metric", "min_samples"]

    /// A list of threshold expressions (or one), each parsed and located.
    func parseThresholds(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> [Threshold] {
        var thresholds: [Threshold] = []
        for (i, item) in r.list(node).enumerated() {
            let here = path.appending(i)
            guard case .scalar = item else {
                r.fail(here, item, "expected a threshold such as \"p99 < 50us\" (quote it), found \(r.describe(item))")
                continue
            }
            guard let text = r.string(item, here) else { continue }
            do {
                thresholds.append(try ThresholdParser.parse(text))
            } catch {
                let at = error.position > 1 ? " (at character \(error.position))" : ""
                r.fail(here, item, "'\(text.clipped)' is not a threshold: \(error.message)\(at)")
            }
        }
        return thresholds
    }

    /// The `thresholds` of one experiment mapping, when it has the key.
    func experimentThresholds(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> [Threshold]? {
        guard case .mapping(let map) = node,
              let entry = map.first(where: { $0.key.string == "thresholds" }) else { return nil }
        return parseThresholds(entry.value, path.appending("thresholds"), &r)
    }

    /// `gate: { tolerance, confidence, metric, min_samples }`.
    func parseGateSettings(_ node: Node, _ path: PlanKeyPath, into settings: inout ComparisonSettings, _ r: inout PlanReader) {
        guard let entries = r.mapping(node, path, allowed: Self.gateKeys) else { return }
        for (key, value) in entries {
            let here = path.appending(key)
            switch key {
            case "tolerance":
                if let v = Self.fraction(value, here, range: 0...0.99, what: "a tolerance such as 10% or 0.1", &r) { settings.tolerance = v }
            case "confidence":
                if let v = Self.fraction(value, here, range: 0.5...0.999, what: "a confidence such as 95% or 0.95", &r) { settings.confidence = v }
            case "metric":
                guard let word = r.string(value, here) else { break }
                let usable = GateMetric.allCases.filter(\.isPerformance)
                if let m = GateMetric(spelling: word), m.isPerformance { settings.metric = m } else {
                    r.fail(here, value, "'\(word.clipped)' cannot be compared with a baseline" + PlanReader.suggestion(for: word, among: usable.map(\.rawValue))
                           + " (expected one of \(usable.map(\.rawValue).joined(separator: ", ")))")
                }
            default:
                if let n = r.integer(value, here, range: 1...1000, what: "a number of samples per side") { settings.minimumSamples = n }
            }
        }
    }

    /// `10%` or `0.1`, within `range`.
    static func fraction(_ node: Node, _ path: PlanKeyPath, range: ClosedRange<Double>, what: String, _ r: inout PlanReader) -> Double? {
        guard let text = node.scalar?.string, let v = Self.fraction(from: text) else {
            r.fail(path, node, "expected \(what), found \(r.describe(node))")
            return nil
        }
        guard range.contains(v) else {
            r.fail(path, node, "\(text) is out of range: expected \(what) from \(Formatting.percent(range.lowerBound)) to \(Formatting.percent(range.upperBound))")
            return nil
        }
        return v
    }

    /// `10%` → 0.1, `0.1` → 0.1; nil for anything else.
    public static func fraction(from text: String) -> Double? {
        var t = text.trimmingSpaces
        var scale = 1.0
        if t.hasSuffix("%") {
            t.removeLast()
            scale = 0.01
        }
        guard let v = Double(t.trimmingSpaces), v.isFinite else { return nil }
        return v * scale
    }
}
