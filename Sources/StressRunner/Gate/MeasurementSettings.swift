import StressCore

/// The settings that decide what a cell's figures mean, beyond its identity:
/// two cells with the same workload, strategy and threads measured under
/// different settings (a 1 s window against 200 ms, a paced load against a
/// closed loop, the TSC against `clock_gettime`, another fuzz tuning) are not
/// the same measurement, and a baseline comparison says so instead of
/// comparing them.
///
/// The seed, timeout and watchdog limit are left out: they do not change what
/// is measured.
package struct MeasurementSettings: Sendable, Equatable {
    /// The measured window: a duration or operations per worker.
    public var durationNs: Int?
    public var opsPerThread: Int?
    /// Untimed warm-up.
    public var warmupNs: Int
    /// Closed loop or paced, with the rate and arrivals.
    public var load: LoadSettings
    /// The clock that timed the operations (what `auto` resolved to, when a
    /// repetition ran to the end; else the plan's choice) and the sampling.
    public var clock: String
    /// Which operations were timed: `auto`, or `1 op in N`.
    public var sampling: String
    /// The fuzzing settings; nil for a portfolio, whose rotation is fixed.
    public var fuzz: FuzzSettings?
    /// Trials ended at their first violation.
    public var stopOnViolation: Bool

    /// The settings of the cell whose trials are `trials` (its first trial,
    /// and the clock of the first one that recorded it).
    public init?(_ trials: [TrialResult]) {
        guard let spec = trials.first?.trial else { return nil }
        durationNs = spec.durationNanoseconds
        opsPerThread = spec.opsPerThread
        warmupNs = spec.warmupNanoseconds
        load = spec.load
        clock = trials.lazy.compactMap { $0.measurement?.timing?.clock }.first ?? spec.timing.clock.rawValue
        switch spec.timing.sampling {
        case .auto: sampling = "auto"
        case .every(let n): sampling = "1 op in \(n)"
        }
        fuzz = spec.fuzz.rotatedFrom == nil ? spec.fuzz : nil
        stopOnViolation = spec.stopOnViolation
    }

    /// What differs between these settings (here) and `baseline`'s, one
    /// phrase each: `duration 200ms here, 1s in the baseline`. Empty when the
    /// two measure the same thing.
    public func differences(from baseline: MeasurementSettings) -> [String] {
        var out: [String] = []
        func note(_ what: String, _ here: String, _ there: String) {
            if here != there { out.append("\(what) \(here) here, \(there) in the baseline") }
        }
        note("window", window, baseline.window)
        note("warm-up", Formatting.latency(warmupNs), Formatting.latency(baseline.warmupNs))
        note("load", Self.describe(load), Self.describe(baseline.load))
        note("clock", clock, baseline.clock)
        note("timing", sampling, baseline.sampling)
        if let here = fuzz, let there = baseline.fuzz {
            // Same profile (it is part of the cell), so only tuning can differ: name each field.
            for (a, b) in zip(Mirror(reflecting: here).children, Mirror(reflecting: there).children) {
                note("fuzz \(a.label ?? "?")", "\(a.value)", "\(b.value)")
            }
        }
        note("stop on violation", String(stopOnViolation), String(baseline.stopOnViolation))
        return out
    }

    private var window: String {
        if let durationNs { return Formatting.latency(durationNs) }
        return opsPerThread.map { "\($0) ops per thread" } ?? "unknown"
    }

    private static func describe(_ load: LoadSettings) -> String {
        guard load.mode == .paced else { return "closed" }
        let rate: String
        switch load.rate {
        case .perSecond(let r)?: rate = Formatting.rate(r) + "/s"
        case .fractionOfCapacity(let f)?: rate = Formatting.percent(f) + " of capacity"
        case nil: rate = "?"
        }
        return "paced \(rate)\(load.poisson ? " poisson" : "")"
    }
}
