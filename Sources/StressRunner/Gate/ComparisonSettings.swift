import StressCore

/// How a run is compared with a baseline: which figure, how big a change
/// matters, and how sure the gate must be.
package struct ComparisonSettings: Sendable, Codable, Equatable {
    /// The figure compared, one sample per repetition (default ``defaultMetric``).
    public var metric: GateMetric
    /// The relative change that matters: a cell regresses only when its whole
    /// confidence interval for new/baseline lies beyond this (0.10 = 10%).
    public var tolerance: Double
    /// The confidence of the interval, and 1 − the rank test's significance
    /// level (0.95: a 95% interval and p < 0.05).
    public var confidence: Double
    /// Bootstrap resamples per cell.
    public var resamples: Int
    /// Fewer repetitions than this on either side makes a cell `inconclusive`.
    public var minimumSamples: Int
    /// Accept a comparison that covers only part of the baseline (cells the
    /// new run lacks, or measured differently). Off by default: a gate that
    /// compared half the cells should not pass as if it had compared them all.
    public var allowPartial: Bool

    /// Settings.
    public init(metric: GateMetric = Self.defaultMetric, tolerance: Double = Self.defaultTolerance, confidence: Double = 0.95,
                resamples: Int = 4000, minimumSamples: Int = Self.defaultMinimumSamples, allowPartial: Bool = false) {
        self.metric = metric
        self.tolerance = tolerance
        self.confidence = confidence
        self.resamples = resamples
        self.minimumSamples = minimumSamples
        self.allowPartial = allowPartial
    }

    private enum CodingKeys: String, CodingKey { case metric, tolerance, confidence, resamples, minimumSamples, allowPartial }

    /// Decodes the settings; `allowPartial` is absent from files written
    /// before it existed, and false then.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        metric = try c.decode(GateMetric.self, forKey: .metric)
        tolerance = try c.decode(Double.self, forKey: .tolerance)
        confidence = try c.decode(Double.self, forKey: .confidence)
        resamples = try c.decode(Int.self, forKey: .resamples)
        minimumSamples = try c.decode(Int.self, forKey: .minimumSamples)
        allowPartial = try c.decodeIfPresent(Bool.self, forKey: .allowPartial) ?? false
    }

    /// The default metric: `p50`, each repetition's median service time per
    /// operation. On a shared runner another process taking a core lowers a
    /// trial's ops/s by however long it held the core, but leaves most single
    /// operations untouched (a preempted one lands in the tail), so the median
    /// per-op time measures the code while ops/s measures the code and the
    /// neighbours. On a loaded 2-core machine ops/s missed most 25% slowdowns
    /// that p50 caught every time (docs/gate.md, "Calibration"). Use `ops_per_s` on
    /// a dedicated machine.
    public static let defaultMetric = GateMetric.p50

    /// The default tolerance: 10%, well above the drift measured between two
    /// runs of one build on a shared 2-core machine (see the A/A figures in docs/gate.md).
    public static let defaultTolerance = 0.10

    /// Five repetitions per side: enough for the exact rank test to reach
    /// p = 0.008 and for a 25% change to show through a shared runner's noise.
    public static let defaultMinimumSamples = 5

    /// The significance level of the rank test, before the correction for
    /// comparing many cells at once.
    public var alpha: Double { 1 - confidence }

    /// Repetitions a side with which a comparison of `cells` cells can call
    /// any cell regressed at all: at least ``minimumSamples``, and enough for
    /// the smallest exact p-value (complete separation) to pass the Holm
    /// correction's first step, α / cells. With the default 95%: 5 up to 6
    /// cells, 6 up to 23, 7 up to 85, 8 up to 321.
    public func samplesNeeded(forCells cells: Int) -> Int {
        var n = Swift.max(1, minimumSamples)
        while Statistics.smallestPValue(n, n) * Double(Swift.max(1, cells)) >= alpha && n < 1000 { n += 1 }
        return n
    }
}

/// What a plan says about its gate: thresholds (plan-wide and per experiment)
/// and comparison settings. Built by ``PlanLoader`` from the `thresholds` and
/// `gate` keys.
package struct GatePolicy: Sendable {
    /// Thresholds for every experiment.
    public var planThresholds: [Threshold]
    /// Thresholds of single experiments, by experiment name.
    public var experimentThresholds: [String: [Threshold]]
    /// Baseline comparison settings from the plan's `gate` key.
    public var comparison: ComparisonSettings
    /// True when the plan has a `gate` key: it is meant to be compared with a
    /// baseline, so its experiments default to enough repetitions for that.
    public var declared = false

    /// A policy; the default has no thresholds beyond the built-in correctness
    /// ones (zero violations, zero crashes, deadlocks, hangs and timeouts, which
    /// the trial outcomes already enforce).
    public init(planThresholds: [Threshold] = [], experimentThresholds: [String: [Threshold]] = [:],
                comparison: ComparisonSettings = ComparisonSettings()) {
        self.planThresholds = planThresholds
        self.experimentThresholds = experimentThresholds
        self.comparison = comparison
    }

    /// The thresholds of `experiment`: its own, plus the plan-wide ones on
    /// metrics it does not bound itself (an experiment's `p99 < 1ms` replaces
    /// the plan's `p99 < 50us` instead of adding to it).
    public func thresholds(forExperiment experiment: String) -> [Threshold] {
        let own = experimentThresholds[experiment] ?? []
        let ownMetrics = Set(own.map(\.metric))
        return planThresholds.filter { !ownMetrics.contains($0.metric) } + own
    }

    /// Whether runs of the plan are meant for a baseline comparison: it has a
    /// `gate` key or a threshold relative to a baseline.
    public var expectsComparison: Bool { declared || needsBaseline }

    /// Whether any threshold needs a baseline to be evaluated.
    public var needsBaseline: Bool {
        (planThresholds + experimentThresholds.values.flatMap { $0 }).contains {
            if case .baseline = $0.bound { return true }
            return false
        }
    }
}
