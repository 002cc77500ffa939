/// Shrinks a failed controlled trial to a smaller schedule that fails the
/// same way (``FailureSignature``), in the order that matters to a reader:
/// the fewest preemptions first, then the fewest operations per worker,
/// then the fewest events.
///
/// 1. **Search small.** Exploration (``ScheduleExplorer``) looks for the
///    same failure with two workers busy (a workload's others run no
///    operation) before all of them, and for each with 0, 1, 2, then 3
///    preemptions, and 1, 2, 3, 4, 6, then 8 operations per worker (a
///    scenario: one round). It has half the time bound.
///    Iterative context bounding finds the fewest preemptions by
///    construction, so the first failure found is the smallest: a lost
///    update shrinks from thousands of events to ten.
/// 2. **Cut the failing run.** When no small run fails the same way (a
///    failure that needs many operations first), the failing decisions are
///    replayed with each decision's alternatives kept and read as
///    deviations from the non-preemptive schedule (``ScheduleDeviation``);
///    preemptions, then the other deviations, are dropped in chunks
///    (halving while any stays) and kept out when the run still fails.
///
/// Every candidate is a full run from a fresh start; all stop at the time
/// bound, and the smallest failing run so far is the answer.
struct ScheduleShrinker {
    let execute: ControlledExecution
    /// The failing trial's settings.
    let base: TrialSettings
    let budgetNs: UInt64
    let runLimitNs: UInt64
    /// Whether the trial is a scenario's (its operations are rounds).
    let rounds: Bool

    /// The most preemptions step 1 searches with.
    static let searchBound = 3

    struct Result {
        var outcome: ControlledExecution.Outcome
        var record: ScheduleRecord.Shrinking
        /// The operations per worker (or rounds) of the shrunk run, when step 1 found it.
        var operations: Int?
        /// How many workers ran operations in the shrunk run, when fewer than all.
        var busyWorkers: Int?
    }

    func shrink(_ original: ControlledExecution.Outcome) -> Result? {
        guard let signature = FailureSignature(original) else { return nil }
        let start = MonotonicClock.now()
        var attempts = 0
        var timedOut = false
        func timeLeft() -> UInt64 {
            let used = MonotonicClock.now() &- start
            return used >= budgetNs ? 0 : budgetNs - used
        }
        func failsTheSame(_ outcome: ControlledExecution.Outcome) -> Bool {
            FailureSignature(outcome).map(signature.matches) ?? false
        }
        var best = original
        var operations: Int?
        var workers: Int?

        // 1. The same failure in a small run: two workers busy before all
        // of them (with many workers busy, the orders in which they may
        // run at all are too many to search), then the fewest preemptions,
        // then the fewest operations.
        let bound = min(Self.preemptions(of: original), Self.searchBound)
        let searchEnds = MonotonicClock.now() &+ budgetNs / 2
        let busy = rounds || base.threads <= 2 ? [base.threads] : [2, base.threads]
        search: for active in busy {
            for k in 0...bound {
            for m in rounds ? [1] : [1, 2, 3, 4, 6, 8] {
                let now = MonotonicClock.now()
                let left = now >= searchEnds ? 0 : searchEnds - now
                if left == 0 || execute.exhausted { break search }
                var e = base
                e.stop = .operations(perThread: m)
                e.activeWorkers = active < base.threads ? active : nil
                let explorer = ScheduleExplorer(
                    execute: execute, settings: ExplorationSettings(preemptions: k, operations: m, budgetNs: left, pruning: true),
                    base: e, runLimitNs: runLimitNs)
                let found = explorer.explore()
                attempts += found.record.schedules
                if let outcome = found.outcome, found.record.failed > 0, failsTheSame(outcome) {
                    best = outcome
                    operations = m
                    workers = e.activeWorkers
                    break search
                }
            }
            }
        }

        // 2. Otherwise, the failing run cut down.
        if operations == nil, !timedOut, let cut = cutDown(original, failsTheSame, timeLeft, &attempts) {
            best = cut.outcome
            timedOut = cut.timedOut
        }

        let record = ScheduleRecord.Shrinking(
            eventsBefore: Self.eventCount(of: original), eventsAfter: Self.eventCount(of: best),
            preemptionsBefore: Self.preemptions(of: original), preemptionsAfter: Self.preemptions(of: best),
            encoded: ScheduleExplorer.encoded(best) ?? "", attempts: attempts, timedOut: timedOut)
        return Result(outcome: best, record: record, operations: operations, busyWorkers: workers)
    }

    /// Step 2: the failing run replayed, then its deviations dropped in chunks.
    private func cutDown(
        _ original: ControlledExecution.Outcome, _ failsTheSame: (ControlledExecution.Outcome) -> Bool,
        _ timeLeft: () -> UInt64, _ attempts: inout Int
    ) -> (outcome: ControlledExecution.Outcome, timedOut: Bool)? {
        guard let decisions = Self.decisions(of: original) else { return nil }
        var s = base
        s.forcedSchedule = decisions
        s.scheduleFallback = .nonPreemptive
        s.recordsChoices = true
        attempts += 1
        let replay = execute(s, limitNs: runLimitNs)
        guard failsTheSame(replay), let choices = Self.choices(of: replay) else { return nil }
        var best = replay
        var kept = Self.deviations(choices)
        var timedOut = false
        // A random walk's thousands of switches cost a few dozen runs this
        // way, not thousands.
        for preemptive in [true, false] {
            var chunk = max(1, kept.filter { $0.preempts == preemptive }.count / 2)
            while true {
                var end = kept.count
                while end > 0 {
                    if timeLeft() == 0 || execute.exhausted {
                        timedOut = true
                        break
                    }
                    // The last `chunk` deviations of this kind before `end`.
                    var picked: [Int] = []
                    var i = end - 1
                    while i >= 0 && picked.count < chunk {
                        if kept[i].preempts == preemptive { picked.append(i) }
                        i -= 1
                    }
                    end = max(0, i + 1)
                    guard !picked.isEmpty else { break }
                    var candidate = kept
                    for index in picked { candidate.remove(at: index) }  // descending, so the indices hold
                    var c = base
                    c.deviations = candidate
                    c.recordsChoices = true
                    attempts += 1
                    let outcome = execute(c, limitNs: runLimitNs)
                    if failsTheSame(outcome) {
                        kept = candidate
                        best = outcome
                    }
                }
                if timedOut || chunk == 1 { break }
                chunk = max(1, chunk / 2)
            }
        }
        return (best, timedOut)
    }

    /// A run's decisions, one worker index each.
    static func decisions(of outcome: ControlledExecution.Outcome) -> [Int]? {
        guard let text = ScheduleExplorer.encoded(outcome) else { return nil }
        return try? ScheduleEncoding.decode(text)
    }

    static func choices(of outcome: ControlledExecution.Outcome) -> [ControlledScheduler.Choice]? {
        switch outcome {
        case .violated(let o), .passed(let o): return o.choices
        case .stalled(let r): return r.choices
        default: return nil
        }
    }

    /// The places where `choices` departs from the non-preemptive schedule.
    static func deviations(_ choices: [ControlledScheduler.Choice]) -> [ScheduleDeviation] {
        choices.compactMap { c in
            guard c.chosen != c.defaultChoice, !c.spun else { return nil }
            return ScheduleDeviation(place: .init(current: c.current, ordinal: c.ordinal), worker: c.chosen,
                                     preempts: c.preempts(choosing: c.chosen))
        }
    }

    static func preemptions(of outcome: ControlledExecution.Outcome) -> Int {
        switch outcome {
        case .violated(let o), .passed(let o): return o.preemptions ?? 0
        case .stalled(let r): return r.preemptions ?? 0
        default: return 0
        }
    }

    static func eventCount(of outcome: ControlledExecution.Outcome) -> Int {
        switch outcome {
        case .violated(let o), .passed(let o): return o.traceEventCount ?? o.trace?.count ?? 0
        case .stalled(let r): return r.traceEventCount ?? r.trace?.count ?? 0
        default: return 0
        }
    }
}
