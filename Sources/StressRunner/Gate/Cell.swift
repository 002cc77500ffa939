import StressCore

/// What makes two trials of one run the same measurement: everything but the
/// repetition and the seed. Thresholds are evaluated per cell, and a baseline
/// comparison matches the cells of two runs on ``matchKey`` (the same without
/// the experiment's name) and then checks their ``MeasurementSettings``.
package struct CellKey: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The experiment's name.
    public var experiment: String
    /// The workload and its parameters.
    public var workload: String
    public var parameters: WorkloadParameters
    /// The strategy.
    public var strategy: String
    /// Workers.
    public var threads: Int
    /// The fuzzing profile: the one the trials ran, or `portfolio` for every
    /// repetition of a portfolio (each runs its own turn of the rotation, and
    /// the cell is the mixture, the same in every run).
    public var fuzz: String
    /// The memory allocator, when it is not the system's; nil for the system allocator.
    public var allocator: String?

    /// The cell `trial` belongs to.
    public init(_ trial: TrialSpec) {
        experiment = trial.experiment
        workload = trial.workload
        parameters = trial.parameters
        strategy = trial.strategy
        threads = trial.threads
        fuzz = (trial.fuzz.rotatedFrom ?? trial.fuzz.profile).rawValue
        // The default allocator is left out, so cells read the same as in
        // records written before trials named their allocator.
        allocator = trial.allocator == .system ? nil : trial.allocator.rawValue
    }

    /// What identifies the cell across runs: workload, parameters, strategy,
    /// threads, fuzz profile and allocator. Not the experiment's name, so
    /// renaming an experiment does not break a comparison.
    /// (This key with the experiment's name left empty.)
    public var matchKey: CellKey {
        var key = self
        key.experiment = ""
        return key
    }

    /// `experiment/strategy/t4`, with the fuzz profile and allocator when they
    /// are not the defaults. It is also the `--only` prefix that reruns the cell.
    public var description: String {
        var label = "\(experiment)/\(strategy)/t\(threads)"
        if fuzz != FuzzProfile.off.rawValue { label += " fuzz=\(fuzz)" }
        if let allocator { label += " allocator=\(allocator)" }
        return label
    }

    /// Matrix-like order: experiment, strategy, threads, then the rest.
    public static func < (a: CellKey, b: CellKey) -> Bool {
        (a.experiment, a.strategy, a.threads, a.fuzz, a.allocator ?? "", a.parameters.compactDescription)
            < (b.experiment, b.strategy, b.threads, b.fuzz, b.allocator ?? "", b.parameters.compactDescription)
    }
}

/// The repetitions of one cell in one run, in repetition order.
package struct Cell: Sendable {
    /// The cell's identity.
    public var key: CellKey
    /// Its trials.
    public var trials: [TrialResult]

    /// The cells of `results`, in the order their first trial appears.
    public static func group(_ results: [TrialResult]) -> [Cell] {
        var order: [CellKey] = []
        var byKey: [CellKey: [TrialResult]] = [:]
        for r in results {
            let key = CellKey(r.trial)
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(r)
        }
        // Sorted only when they are not (a run's trials come in order): a
        // stopped large run has a cell of hundreds of thousands.
        return order.map { key in
            let trials = byKey[key]!
            let inOrder = trials.indices.dropFirst().allSatisfy { trials[$0 - 1].trial.repetition <= trials[$0].trial.repetition }
            return Cell(key: key, inOrder ? trials : trials.sorted { $0.trial.repetition < $1.trial.repetition })
        }
    }

    /// A cell.
    public init(key: CellKey, _ trials: [TrialResult]) {
        self.key = key
        self.trials = trials
    }

    /// How the cell was measured (nil only for a cell with no trials).
    public var settings: MeasurementSettings? { MeasurementSettings(trials) }

    /// One sample of `metric` per repetition that has one.
    public func samples(_ metric: GateMetric) -> [Double] { trials.compactMap(metric.sample(of:)) }

    /// The latency histograms of every repetition, merged bucket by bucket.
    public var mergedHistogram: LatencyHistogram {
        var merged = LatencyHistogram()
        for m in trials.compactMap(\.measurement) { merged.merge(LatencyHistogram(buckets: m.histogram)) }
        return merged
    }

    /// The cell's value of `metric`: latencies from the merged histogram (never
    /// an average of percentiles), throughput as the median over repetitions
    /// (robust to one disturbed repetition), counts summed. Nil when no
    /// repetition has a sample.
    public func value(_ metric: GateMetric) -> Double? {
        switch metric.kind {
        case .count: return trials.isEmpty ? nil : samples(metric).reduce(0, +)
        case .rate: return Statistics.median(samples(metric))
        case .latency: return mergedHistogram.summary().flatMap(metric.value(in:))
        }
    }
}
