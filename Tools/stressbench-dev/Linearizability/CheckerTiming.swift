import StressCore

/// Times `LinearizabilityChecker.check` on one history: run it again and
/// again (at least `minimumRuns` times, and until `minimumTotal` has passed
/// or `maximumRuns` are done) and keep each run's time, so the figures are a
/// median over many, not one lucky or unlucky run.
struct CheckerTiming {
    var minimumRuns = 3
    var maximumRuns = 1_001
    var minimumTotal: Duration = .milliseconds(200)
    var timeLimit: Duration = .seconds(60)

    /// One history's verdict, work and times.
    struct Measurement {
        var verdict: LinearizabilityVerdict
        var statesExplored: Int
        /// Each run's time, in seconds, sorted.
        var seconds: [Double]

        var median: Double { seconds[seconds.count / 2] }
    }

    func measure<M: SequentialModel>(_ history: [HistoryOperation<M.Operation, M.Result>], model: M) -> Measurement {
        let clock = ContinuousClock()
        var seconds: [Double] = []
        var verdict = LinearizabilityVerdict.unknown
        var states = 0
        let start = clock.now
        while seconds.count < minimumRuns || (seconds.count < maximumRuns && clock.now - start < minimumTotal) {
            let before = clock.now
            let outcome = LinearizabilityChecker.check(history, model: model, timeLimit: timeLimit)
            seconds.append((clock.now - before).seconds)
            verdict = outcome.verdict
            states = outcome.statesExplored
        }
        return Measurement(verdict: verdict, statesExplored: states, seconds: seconds.sorted())
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}

/// The `q`th quantile (0...1) of sorted `values`, nearest rank.
func quantile(_ values: [Double], _ q: Double) -> Double {
    values[min(values.count - 1, Int((Double(values.count - 1) * q).rounded()))]
}

/// Seconds as milliseconds with three decimals ("0.123 ms").
func milliseconds(_ seconds: Double) -> String {
    let thousandths = Int((seconds * 1_000_000).rounded())
    let fraction = String(thousandths % 1_000)
    return "\(thousandths / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) ms"
}
