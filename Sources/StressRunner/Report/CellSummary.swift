import Foundation
import StressCore

/// One cell of a run (all repetitions of experiment × strategy × allocator ×
/// threads), summed up for a results file's reader: the gate metric's median
/// over the repetitions with a distribution-free interval, and what the
/// trials came to. The `cells` key of the JSON; the trials stay the source.
package struct CellSummary: Sendable, Codable, Equatable {
    /// `experiment/strategy[/allocator]/tN`: what `--only` takes to rerun the cell.
    public var cell: String
    /// The experiment, strategy, workers and allocator.
    public var experiment: String
    public var strategy: String
    public var threads: Int
    public var allocator: String
    /// Trials in the cell.
    public var repetitions: Int
    /// How many trials had each outcome (`{"passed": 4, "violated": 1}`).
    public var outcomes: [String: Int]
    /// How many trials stood how against the plan's `expect` (`passed`,
    /// `caught`, `missed`, `unexpected`, `skipped`).
    public var expectation: [String: Int]
    /// The gate metric (`p50` unless the run's comparison used another).
    public var metric: String
    /// Its median over the repetitions that have a sample; nil when none has.
    public var median: Double?
    /// A distribution-free interval for that median from the samples' order
    /// statistics (no assumption about their distribution): the narrowest
    /// symmetric one covering at least 95%, or with fewer than 6 samples the
    /// range of the samples, whose coverage ``confidence`` then says.
    public var low: Double?
    public var high: Double?
    /// The interval's exact coverage (for example 0.969 for 6 samples, 0.875 for 4).
    public var confidence: Double?
    /// How many repetitions had a sample of the metric.
    public var samples: Int
    /// False for a strategy that does not synchronize (the `unsynchronized`
    /// control): with nothing to order, the optimizer may fold its loop, so
    /// its throughput and latency are not figures to compare with a strategy's.
    public var comparable: Bool

    /// The summaries of `report`'s cells, in run order, for `metric`.
    public static func of(_ report: RunReport, metric: GateMetric? = nil,
                          registry: StressRegistry = .builtIn) -> [CellSummary] {
        let metric = metric ?? report.gate?.comparison?.settings.metric ?? ComparisonSettings.defaultMetric
        // The cells' trials by index, not copied into cells: a stopped large
        // run has hundreds of thousands of records, and a copy of each costs.
        let trials = report.trials
        var order: [CellKey] = []
        var byKey: [CellKey: [Int]] = [:]
        // A cell's trials mostly come one after another: a run of them is
        // gathered before the dictionary is asked (hashing each record's key
        // was most of the cost for a stopped large run).
        var run: (key: CellKey, members: [Int])?
        func close() {
            guard let (key, members) = run else { return }
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []] += members
        }
        for i in trials.indices {
            let key = CellKey(trials[i].trial)
            if run?.key == key {
                run?.members.append(i)
            } else {
                close()
                run = (key, [i])
            }
        }
        close()
        return order.map { key in
            let members = byKey[key]!
            let first = trials[members[0]].trial
            // Counted by value, named once: a string key hashed per trial costs.
            var byOutcome: [TrialOutcome: Int] = [:], byStatus: [ExpectationStatus: Int] = [:]
            for i in members {
                byOutcome[trials[i].outcome, default: 0] += 1
                byStatus[trials[i].expectation, default: 0] += 1
            }
            let outcomes = Dictionary(uniqueKeysWithValues: byOutcome.map { ($0.key.rawValue, $0.value) })
            let expectation = Dictionary(uniqueKeysWithValues: byStatus.map { ($0.key.rawValue, $0.value) })
            let samples = members.compactMap { metric.sample(of: trials[$0]) }.sorted()
            let interval = medianInterval(sorted: samples)
            let allocator = key.allocator.map { "/\($0)" } ?? ""
            return CellSummary(
                cell: "\(first.experiment)/\(first.strategy)\(allocator)/t\(first.threads)",
                experiment: first.experiment, strategy: first.strategy, threads: first.threads,
                allocator: first.allocator.rawValue, repetitions: members.count, outcomes: outcomes,
                expectation: expectation, metric: metric.rawValue, median: Statistics.median(samples),
                low: interval?.low, high: interval?.high, confidence: interval?.confidence, samples: samples.count,
                comparable: registry.strategy(named: first.strategy)?.descriptor.synchronizes ?? true)
        }
    }

    /// The order-statistic interval for the median of `sorted`: the k-th
    /// smallest to the k-th largest sample, with k the largest whose coverage
    /// P(k ≤ Binomial(n, ½) < n − k + 1) is still at least 95%; the whole range
    /// when even that is below 95%. Nil for fewer than 2 samples.
    static func medianInterval(sorted: [Double]) -> (low: Double, high: Double, confidence: Double)? {
        let n = sorted.count
        guard n >= 2 else { return nil }  // one sample bounds nothing
        // P(Binomial(n, ½) = i) for every i, by the recurrence C(n, i+1) = C(n, i)·(n−i)/(i+1).
        var pmf = [Double](repeating: 0, count: n + 1)
        pmf[0] = pow(0.5, Double(n))
        for i in 0..<n { pmf[i + 1] = pmf[i] * Double(n - i) / Double(i + 1) }
        func coverage(_ k: Int) -> Double { (k...(n - k)).reduce(0) { $0 + pmf[$1] } }
        var k = 1
        // k + 1 must stay at or below its mirror n − (k + 1), or the interval is empty.
        while 2 * (k + 1) <= n, coverage(k + 1) >= 0.95 { k += 1 }
        return (sorted[k - 1], sorted[n - k], coverage(k))
    }
}
