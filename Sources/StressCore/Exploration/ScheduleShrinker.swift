/// Shrinks a failed controlled trial to a smaller schedule that fails the
/// same way (``FailureSignature``), in the order that matters to a reader:
/// the fewest preemptions first, then the fewest operations per worker,
/// then the fewest events.
///
/// 1. **Search small.** Exploration (``ScheduleExplorer``) looks for the
///    same failure with 0, 1, 2, then 3 preemptions, and for each with two
///    workers busy (a workload's others run no operation) before all of
///    them. The pairs come in the order the failing run's trace suggests:
///    the worker that failed with the ones that ran last before it. Each
///    pair first gets a coarse search with many operations per worker (16
///    with up to 1 preemption); only when that fails the same way is the
///    fewest of 1, 2, 3, 4, 6, 8 and 12 operations that still does found,
///    by halving. Pairs start at 1 preemption, unless the failure is a
///    stall. (A scenario: all roles, one round.) It has half the time bound. Iterative context
///    bounding finds the fewest preemptions by construction, so a lost
///    update shrinks from thousands of events to ten, and a check-then-act
///    among eight workers to the two withdrawals that race.
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
    /// The operations per worker step 1 tries once a coarse search found
    /// the failure, the fewest first.
    static let operationCounts = [1, 2, 3, 4, 6, 8, 12]

    /// The operations per worker of step 1's coarse search with `k`
    /// preemptions: the schedules grow with the k-th power of the run's
    /// length, so more preemptions get shorter runs.
    static func coarseOperations(preemptions k: Int) -> Int {
        switch k {
        case ...1: return 16
        case 2: return 6
        default: return 3
        }
    }

    /// The workers of a failed run, those the failure most likely involves
    /// first: the failing run's trace read backwards (the worker that
    /// failed, or the stuck ones, come last in it), then any it does not
    /// name.
    static func involvedWorkers(_ outcome: ControlledExecution.Outcome, threads: Int) -> [Int] {
        var order: [Int] = []
        var seen = Array(repeating: false, count: threads)
        let trace: [TraceEvent]? = switch outcome {
        case .violated(let o), .passed(let o): o.trace
        case .stalled(let r): r.trace
        default: nil
        }
        for event in (trace ?? []).reversed() where event.worker >= 0 && event.worker < threads && !seen[event.worker] {
            seen[event.worker] = true
            order.append(event.worker)
        }
        return order + (0..<threads).filter { !seen[$0] }
    }

    /// Every pair of `workers`, in their order: the first with each of the
    /// others, then the second with the rest, and so on.
    static func pairs(_ workers: [Int]) -> [BusyWorkers?] {
        var pairs: [BusyWorkers?] = []
        for (i, a) in workers.enumerated() {
            for b in workers[(i + 1)...] { pairs.append(BusyWorkers([a, b])) }
        }
        return pairs
    }

    struct Result {
        var outcome: ControlledExecution.Outcome
        var record: ScheduleRecord.Shrinking
        /// The operations per worker (or rounds) of the shrunk run, when step 1 found it.
        var operations: Int?
        /// The workers that ran operations in the shrunk run, when fewer than all.
        var busyWorkers: BusyWorkers?
    }

    func shrink(_ original: ControlledExecution.Outcome) -> Result? {
        guard let signature = FailureSignature(original) else { return nil }
        let start = MonotonicClock.now()
        // No candidate is waited for past the budget: one stopped at the
        // bound may run on uncontrolled into a deadlock of its own.
        execute.waitNoLater(than: start &+ budgetNs)
        defer { execute.waitNoLater(than: nil) }
        var attempts = 0
        var timedOut = false
        func timeLeft() -> UInt64 {
            let used = MonotonicClock.now() &- start
            return used >= budgetNs ? 0 : budgetNs - used
        }
        func failsTheSame(_ outcome: ControlledExecution.Outcome) -> Bool {
            // A candidate that ended once its stop was asked for (the
            // bound passed) may have been cut short: its end-of-trial
            // checks saw a run its schedule does not replay.
            if base.stopRequested?() == true { return false }
            return FailureSignature(outcome).map(signature.matches) ?? false
        }
        var best = original
        var operations: Int?
        var workers: BusyWorkers?

        // 1. The same failure in a small run: the fewest preemptions, two
        // workers busy before all of them (with many busy, the orders in
        // which they may run at all are too many to search), then the
        // fewest operations.
        let bound = min(Self.preemptions(of: original), Self.searchBound)
        let searchEnds = MonotonicClock.now() &+ budgetNs / 2
        func searchLeft() -> UInt64 {
            let now = MonotonicClock.now()
            return now >= searchEnds || execute.exhausted ? 0 : searchEnds - now
        }
        /// The same failure explored with `k` preemptions, `m` operations
        /// per worker and only `busy` busy (nil: all), for at most `slice`.
        func explore(k: Int, m: Int, busy: BusyWorkers?, slice: UInt64) -> ControlledExecution.Outcome? {
            var e = base
            e.stop = .operations(perThread: m)
            e.busyWorkers = busy
            e.summarizesLatency = false
            let explorer = ScheduleExplorer(
                execute: execute, settings: ExplorationSettings(preemptions: k, operations: m, budgetNs: slice, pruning: true),
                base: e, runLimitNs: runLimitNs)
            let found = explorer.explore()
            attempts += found.record.schedules
            guard let outcome = found.outcome, found.record.failed > 0, failsTheSame(outcome) else { return nil }
            return outcome
        }
        let groups: [BusyWorkers?] = rounds || base.threads <= 2
            ? [nil] : Self.pairs(Self.involvedWorkers(original, threads: base.threads)) + [nil]
        // Pairs start at 1 preemption unless the failure is a stall (a
        // deadlock may need none): a broken invariant seldom shows without
        // one, and a search with 1 runs the schedules without any too, so
        // the sweep of every pair with none mostly costs time.
        let stalled = if case .stalled = original { true } else { false }
        search: for busy in [true, false] {
            for k in 0...bound where k > 0 || !busy || stalled {
                for group in groups where (group != nil) == busy {
                    if rounds {
                        guard let found = explore(k: k, m: 1, busy: nil, slice: searchLeft()) else { continue }
                        (best, operations, workers) = (found, 1, nil)
                        break search
                    }
                    // Coarse first: a pair that cannot fail with many
                    // operations cannot with fewer. Each gets a share of
                    // what is left, so one pair's large space does not use
                    // up the search.
                    let most = Self.coarseOperations(preemptions: k)
                    let slice = group == nil ? searchLeft() : searchLeft() / 3
                    guard slice > 0 else { break search }
                    guard var found = explore(k: k, m: most, busy: group, slice: slice) else { continue }
                    // The fewest operations, by halving: a failure within m
                    // operations is within any more.
                    var m = most
                    var fewer = Self.operationCounts.filter { $0 < most }
                    while !fewer.isEmpty, searchLeft() > 0 {
                        let middle = fewer[fewer.count / 2]
                        if let smaller = explore(k: k, m: middle, busy: group, slice: searchLeft()) {
                            (found, m) = (smaller, middle)
                            fewer = fewer.filter { $0 < middle }
                        } else {
                            fewer = fewer.filter { $0 > middle }
                        }
                    }
                    (best, operations, workers) = (found, m, group)
                    break search
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
        s.summarizesLatency = false
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
                    c.summarizesLatency = false
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
