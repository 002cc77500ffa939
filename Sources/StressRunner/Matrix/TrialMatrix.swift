import StressCore

/// Expands a plan into its trials: for each experiment, every strategy ×
/// allocator × thread count × repetition, in that nesting order, or repetition
/// first (``TrialOrder/interleaved``).
package enum TrialMatrix {
    /// Every trial of `plan`, with ids, seeds and timeouts worked out, in the
    /// order they run; a trial's ``TrialSpec/index`` is its place in that order.
    ///
    /// A trial's seed derives from the experiment's base seed, the experiment
    /// name, the thread count and the repetition, but not from the strategy: every
    /// strategy in a cell sees the same per-thread operation streams, so their
    /// figures compare like with like.
    public static func expand(_ plan: Plan) -> [TrialSpec] {
        var trials: [TrialSpec] = []
        for e in plan.experiments {
            for strategy in e.strategies {
                for allocator in e.allocators {
                for threads in e.threads {
                    for rep in 0..<e.repetitions {
                        let alloc = allocator == .system ? "" : "/\(allocator.rawValue)"
                        trials.append(TrialSpec(
                            id: "\(e.name)/\(strategy)\(alloc)/t\(threads)/r\(rep)",
                            index: trials.count,
                            plan: plan.name,
                            experiment: e.name,
                            workload: e.workload,
                            parameters: e.parameters,
                            strategy: strategy,
                            threads: threads,
                            repetition: rep,
                            seed: seed(base: e.seed, experiment: e.name, threads: threads, repetition: rep),
                            warmupNs: Int(clamping: e.warmupNs),
                            durationNs: e.stop.durationNs.map { Int(clamping: $0) },
                            opsPerThread: e.stop.opsPerThread,
                            timeoutNs: Int(clamping: e.timeoutNs ?? automaticTimeout(e)),
                            deadlockAfterNs: Int(clamping: e.deadlockAfterNs),
                            fuzz: e.fuzz.forRepetition(rep),
                            timing: e.timing,
                            allocator: allocator,
                            load: e.load,
                            stopOnViolation: e.stopOnViolation,
                            scenario: e.isScenario ? true : nil,
                            expect: e.expect.recorded(strategy: strategy, threads: threads)
                        ))
                        trials[trials.count - 1].strategyParts = e.strategyParts[strategy]
                        trials[trials.count - 1].interpose = e.interpose ? true : nil
                        trials[trials.count - 1].check = e.checksLinearizability ? .linearizable : nil
                        trials[trials.count - 1].executor = e.executor
                        if e.schedule == .controlled {
                            trials[trials.count - 1].schedule = .controlled
                            trials[trials.count - 1].maxDecisions = e.maxDecisions
                            trials[trials.count - 1].exploration = e.exploration
                        } else if e.maxDecisions != PlanDefaults.maxDecisions {
                            // A free trial whose plan gave its cap: kept, so
                            // that `--schedule controlled` keeps the plan's word.
                            trials[trials.count - 1].maxDecisions = e.maxDecisions
                        }
                        // Recorded for a controlled trial, and for a free one whose plan
                        // set it (so that `--schedule controlled` keeps the plan's word).
                        if e.schedule == .controlled || e.shrinkNs != PlanDefaults.shrinkNs {
                            trials[trials.count - 1].shrinkNanoseconds = Int(clamping: e.shrinkNs)
                        }
                    }
                }
                }
            }
        }
        guard plan.order == .interleaved else { return trials }
        // Repetition first, the matrix order within a round (the sort is stable).
        var ordered = trials.enumerated().sorted { ($0.element.repetition, $0.offset) < ($1.element.repetition, $1.offset) }.map(\.element)
        for i in ordered.indices { ordered[i].index = i }
        return ordered
    }

    /// The most trials a plan may expand to (``PlanDefaults/maxTrials``).
    public static var maxTrials: Int { PlanDefaults.maxTrials }

    /// How many trials `experiment` expands to, worked out without making
    /// them (saturating: a product past `Int.max` stays there).
    public static func trialCount(_ e: Experiment) -> Int {
        [e.strategies.count, e.allocators.count, e.threads.count, e.repetitions].reduce(1) { product, factor in
            let (p, overflow) = product.multipliedReportingOverflow(by: factor)
            return overflow ? .max : p
        }
    }

    /// How many trials `plan` expands to (saturating).
    public static func trialCount(_ plan: Plan) -> Int {
        plan.experiments.reduce(0) { total, e in
            let (sum, overflow) = total.addingReportingOverflow(trialCount(e))
            return overflow ? .max : sum
        }
    }

    /// How long `plan` would take, roughly: each trial's warm-up, window (a
    /// count-bound one counted as ``TrialDurationEstimate/countBoundSeconds``)
    /// and process start, added up.
    public static func plannedSeconds(_ plan: Plan) -> Double {
        plan.experiments.reduce(0) { total, e in
            // An exploration runs for its budget at most.
            let window = e.exploration.map { Double($0.budgetNs) / 1e9 }
                ?? e.stop.durationNs.map { Double($0) / 1e9 } ?? TrialDurationEstimate.countBoundSeconds
            let each = Double(e.warmupNs) / 1e9 + window + TrialDurationEstimate.processOverheadSeconds
            return total + Double(trialCount(e)) * each
        }
    }

    /// Why `plan` is too large to expand (more than ``maxTrials`` trials),
    /// naming the product that made it; nil when it is not.
    public static func sizeProblem(_ plan: Plan) -> String? {
        let total = trialCount(plan)
        guard total > maxTrials else { return nil }
        let biggest = plan.experiments.max { trialCount($0) < trialCount($1) }!
        let share = plan.experiments.count > 1 ? "; the largest, experiment '\(biggest.name)', makes \(product(biggest))" : ": \(product(biggest))"
        return "the plan expands to \(total == .max ? "more than \(Int.max)" : String(total)) trials\(share); "
            + "a plan may have at most \(maxTrials) (fewer repetitions, thread counts or strategies, or split it into several plans)"
    }

    /// `18 strategies × 1 allocator × 3 thread counts × 10 repetitions = 540 trials`.
    static func product(_ e: Experiment) -> String {
        func n(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        let count = trialCount(e)
        return [n(e.strategies.count, "strategy", "strategies"), n(e.allocators.count, "allocator", "allocators"),
                n(e.threads.count, "thread count", "thread counts"), n(e.repetitions, "repetition", "repetitions")]
            .joined(separator: " × ") + " = \(count == .max ? "more than \(Int.max)" : String(count)) trials"
    }

    /// Every seed is below this, 2^53: a JSON reader that reads numbers as
    /// doubles keeps it exact (see ``TrialSpec/seed``).
    public static let seedLimit: UInt64 = 1 << 53

    /// The seed of one trial (below ``seedLimit``).
    public static func seed(base: UInt64, experiment: String, threads: Int, repetition: Int) -> UInt64 {
        var s = SplitMix64.derive(base, SplitMix64.hash(experiment))
        s = SplitMix64.derive(s, UInt64(threads))
        s = SplitMix64.derive(s, UInt64(repetition))
        return s & (seedLimit - 1)
    }

    /// Twice the expected run time plus ten seconds for a timed trial, two minutes
    /// past the warm-up for a counted one. A controlled trial by time runs for
    /// its decisions instead: ten seconds plus 100 µs a decision (a decision
    /// costs 2 to 50 µs on a 2-core machine, the most when the other core is
    /// busy). A controlled trial that fails is then shrunk, for up to its
    /// `shrink` bound, which is added. An explored trial runs for its
    /// exploration's budget, plus the shrink bound and ten seconds to start
    /// and report. Saturating: the plan loader bounds every duration, but an
    /// ``Experiment`` can also be built in code.
    static func automaticTimeout(_ e: Experiment) -> UInt64 {
        if let exploration = e.exploration {
            return exploredTimeout(budgetNs: exploration.budgetNs, shrinkNs: e.shrinkNs)
        }
        let shrink = e.schedule == .controlled ? e.shrinkNs : 0
        if e.schedule == .controlled, case .duration = e.stop {
            return controlledTimeout(maxDecisions: e.maxDecisions, shrinkNs: shrink)
        }
        switch e.stop {
        case .duration(let ns): return e.warmupNs.saturatingAdd(ns.saturatingMultiply(2)).saturatingAdd(10_000_000_000)
        case .operations: return e.warmupNs.saturatingAdd(120_000_000_000).saturatingAdd(shrink)
        }
    }

    /// A controlled trial by time: ten seconds plus 100 µs a decision, plus
    /// the time it may be shrunk for (see ``automaticTimeout(_:)``).
    package static func controlledTimeout(maxDecisions: Int, shrinkNs: UInt64) -> UInt64 {
        UInt64(max(0, maxDecisions)).saturatingMultiply(100_000).saturatingAdd(10_000_000_000).saturatingAdd(shrinkNs)
    }

    /// An explored trial: its budget, plus the shrink bound and ten seconds.
    package static func exploredTimeout(budgetNs: UInt64, shrinkNs: UInt64) -> UInt64 {
        budgetNs.saturatingAdd(shrinkNs).saturatingAdd(10_000_000_000)
    }
}

extension UInt64 {
    /// `self + other`, or `UInt64.max` where that overflows.
    func saturatingAdd(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    /// `self × other`, or `UInt64.max` where that overflows.
    func saturatingMultiply(_ other: UInt64) -> UInt64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }
}
