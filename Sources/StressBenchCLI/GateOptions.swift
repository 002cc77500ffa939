import ArgumentParser
import StressKit

/// The command-line settings of a baseline comparison, shared by `run` and
/// `compare`; each overrides the plan's `gate` key.
struct GateOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A cell regresses only when its whole confidence interval is worse than this (e.g. 10% or 0.1; default: the plan's gate.tolerance, else 10%).", valueName: "fraction"))
    var tolerance: String?

    @Option(help: ArgumentHelp("Confidence of the bootstrap interval; the rank test's level is 1 − this (default 95%).", valueName: "fraction"))
    var confidence: String?

    @Option(help: ArgumentHelp("The figure compared, one sample per repetition: p50 (default: the median time per op, robust on shared machines), ops_per_s, p90, p99, p99.9, p99.99, max, min, mean.", valueName: "metric"),
            completion: .list(GateMetric.allCases.filter { $0.kind != .count }.map(\.rawValue)))
    var metric: String?

    @Option(name: .customLong("min-samples"), help: ArgumentHelp("Repetitions a cell needs on each side for a verdict other than inconclusive (default 5).", valueName: "n"))
    var minSamples: Int?

    @Flag(name: .customLong("allow-partial"), help: "Accept a baseline that covers the run only in part: baseline cells missing from the run, or measured differently, are reported but do not give exit code 2.")
    var allowPartial = false

    func validate() throws {
        if let tolerance, PlanLoader.fraction(from: tolerance).map({ (0...0.99).contains($0) }) != true {
            throw ValidationError("--tolerance expects a fraction such as 10% or 0.1 (below 100%), got '\(tolerance.terminalSafe)'")
        }
        if let confidence, PlanLoader.fraction(from: confidence).map({ (0.5...0.999).contains($0) }) != true {
            throw ValidationError("--confidence expects a fraction such as 95% or 0.95 (from 50% to 99.9%), got '\(confidence.terminalSafe)'")
        }
        if let metric, GateMetric(spelling: metric)?.isPerformance != true {
            let usable = GateMetric.allCases.filter(\.isPerformance).map(\.rawValue)
            throw ValidationError("--metric expects one of \(usable.joined(separator: ", ")), got '\(metric.terminalSafe)'")
        }
        if let minSamples, minSamples < 1 { throw ValidationError("--min-samples must be at least 1") }
    }

    /// `settings` with these options applied over it.
    func applied(to settings: ComparisonSettings) -> ComparisonSettings {
        var s = settings
        if let t = tolerance.flatMap(PlanLoader.fraction(from:)) { s.tolerance = t }
        if let c = confidence.flatMap(PlanLoader.fraction(from:)) { s.confidence = c }
        if let m = metric.flatMap(GateMetric.init(spelling:)) { s.metric = m }
        if let n = minSamples { s.minimumSamples = n }
        if allowPartial { s.allowPartial = true }
        return s
    }
}
