/// Bounded exhaustive exploration: every schedule of a controlled trial with
/// at most K preemptions, by iterative context bounding (CHESS): runs are
/// replayed from a fresh start, each following a prefix of decisions and
/// then the non-preemptive schedule, and a depth-first search over the
/// decisions' alternatives chooses the next prefix.
///
/// The reduction is sleep sets: after a branch to one worker was explored
/// at a decision, a sibling branch leaves that worker asleep until a
/// transition that does not commute with it runs. A transition is known to
/// commute only when both only take or give back different primitives
/// (``ControlledScheduler/Footprint``); any other may touch any memory and
/// never commutes, which keeps the reduction sound for any code under test.
/// With a preemption bound, an equivalent schedule may count a different
/// number of preemptions (Coons, Musuvathi and McKinley, 2013), so
/// `pruning: false` gives the strict answer.
struct ScheduleExplorer {
    /// What the search found.
    struct Result {
        var record: ScheduleRecord.Exploration
        /// The failing run's outcome, or the last passing run's.
        var outcome: ControlledExecution.Outcome?
    }

    /// One decision on the current path.
    private struct Node {
        var choice: ControlledScheduler.Choice
        /// Workers explored here, with their transitions' footprints.
        var explored: [(worker: Int, footprint: ControlledScheduler.Footprint)]
        /// Transitions asleep here.
        var sleep: [(worker: Int, footprint: ControlledScheduler.Footprint)]
        /// Deliberate preemptions before this decision.
        var preemptionsBefore: Int
        /// Whether this node lies on the first schedule (where shards split).
        var onFirstPath: Bool
    }

    let execute: ControlledExecution
    let settings: ExplorationSettings
    /// The trial's settings, controlled, with the stop the exploration sets.
    let base: TrialSettings
    /// The most time one run may take before it is left behind.
    let runLimitNs: UInt64
    /// Whether each schedule's start goes to this process's crash journal
    /// (``CrashJournal``), so that a schedule that kills the process is
    /// reported with the count that passed before it: the trial's own
    /// exploration does; shrinking's searches do not.
    var reportsProgress = false

    func explore() -> Result {
        let start = MonotonicClock.now()
        let bound = settings.preemptions
        var path: [Node] = []
        var schedules = 0, pruned = 0
        var firstPathAlternatives = 0, firstPathDone = 0
        var prefix: [Int] = []
        var last: ControlledExecution.Outcome?
        var countThis = settings.shard.map { $0.index == 1 } ?? true
        var firstRun = true
        while true {
            if MonotonicClock.now() &- start >= settings.budgetNs || execute.exhausted {
                let coverage = firstPathAlternatives == 0 ? 0 : Double(firstPathDone) / Double(firstPathAlternatives)
                return Result(record: record(schedules, failed: 0, complete: false, pruned: pruned, coverage: coverage), outcome: last)
            }
            var s = base
            s.forcedSchedule = prefix
            s.scheduleFallback = .nonPreemptive
            s.recordsChoices = true
            if reportsProgress { CrashJournal.current?.noteSchedule(bound: bound, passed: schedules, pruned: pruned) }
            let outcome = execute(s, limitNs: runLimitNs)
            last = outcome
            if countThis { schedules += 1 }
            switch outcome {
            case .failedToRun(let why):
                var r = record(schedules, failed: 0, complete: false, pruned: pruned, coverage: nil)
                r.failingSchedule = nil
                return Result(record: r, outcome: .failedToRun(why))
            case .abandoned:
                return Result(record: record(schedules, failed: 0, complete: false, pruned: pruned, coverage: nil), outcome: outcome)
            case .violated, .stalled:
                if countThis {
                    var r = record(schedules, failed: 1, complete: false, pruned: pruned, coverage: nil)
                    r.failingSchedule = Self.encoded(outcome)
                    return Result(record: r, outcome: outcome)
                }
            case .passed:
                break
            }
            // The run's decisions below the prefix become the path.
            let choices = outcome.output?.choices ?? []
            extend(&path, from: prefix.count, with: choices, firstRun: firstRun)
            if firstRun {
                firstPathAlternatives = path.reduce(0) { $0 + alternatives(of: $1, bound: bound).count }
                firstRun = false
            }
            // Back up to the deepest decision with a branch left.
            var next: (depth: Int, worker: Int)?
            while let depth = path.indices.last {
                let options = alternatives(of: path[depth], bound: bound)
                var chosen: Int?
                for w in options {
                    if settings.pruning && path[depth].sleep.contains(where: { $0.worker == w }) {
                        path[depth].explored.append((w, .opaque))
                        pruned += 1
                        continue
                    }
                    if path[depth].onFirstPath, let shard = settings.shard, !shard.owns(decision: depth, worker: w) {
                        path[depth].explored.append((w, .opaque))
                        continue
                    }
                    chosen = w
                    break
                }
                if let chosen {
                    next = (depth, chosen)
                    break
                }
                path.removeLast()
            }
            guard let next else {
                return Result(record: record(schedules, failed: 0, complete: true, pruned: pruned, coverage: nil), outcome: last)
            }
            if path[next.depth].onFirstPath { firstPathDone += 1 }
            countThis = true
            prefix = path[..<next.depth].map(\.choice.chosen) + [next.worker]
            // The branch's own node is rebuilt from the next run; keep what
            // was explored and asleep here.
            path[next.depth].choice.chosen = next.worker
            path[next.depth].explored.append((next.worker, .opaque))
            path.removeSubrange((next.depth + 1)...)
        }
    }

    /// Adds the run's decisions from `depth` on to the path, with their
    /// sleep sets; fills in the footprint of the branch taken at `depth - 1`.
    private func extend(_ path: inout [Node], from depth: Int, with choices: [ControlledScheduler.Choice], firstRun: Bool) {
        if depth > 0, depth - 1 < choices.count, depth - 1 < path.count {
            path[depth - 1].choice.footprint = choices[depth - 1].footprint
            if let i = path[depth - 1].explored.lastIndex(where: { $0.worker == choices[depth - 1].chosen }) {
                path[depth - 1].explored[i].footprint = choices[depth - 1].footprint
            }
        }
        guard depth < choices.count else { return }
        for i in depth..<choices.count {
            let choice = choices[i]
            var sleep: [(worker: Int, footprint: ControlledScheduler.Footprint)] = []
            var preemptions = 0
            if let parent = path.last {
                let taken = parent.choice
                // Asleep below: what was asleep or explored at the parent
                // (before its branch) and commutes with the branch taken.
                let before = parent.explored.filter { $0.worker != taken.chosen }
                for t in parent.sleep + before where t.worker != taken.chosen && t.footprint.commutes(with: taken.footprint) {
                    sleep.append(t)
                }
                preemptions = parent.preemptionsBefore + (taken.preempts(choosing: taken.chosen) && !taken.spun ? 1 : 0)
            }
            path.append(Node(choice: choice, explored: [(choice.chosen, choice.footprint)], sleep: sleep,
                             preemptionsBefore: preemptions, onFirstPath: firstRun))
        }
    }

    /// The workers not yet explored at `node` whose choice keeps the
    /// schedule within the bound.
    private func alternatives(of node: Node, bound: Int) -> [Int] {
        var result: [Int] = []
        // A timed wait that could time out here is an alternative too.
        var mask = node.choice.runnable | (node.choice.timeout >= 0 ? 1 << UInt64(node.choice.timeout) : 0)
        while mask != 0 {
            let w = mask.trailingZeroBitCount
            mask &= mask - 1
            guard !node.explored.contains(where: { $0.worker == w }) else { continue }
            let cost = node.choice.preempts(choosing: w) ? 1 : 0
            if node.preemptionsBefore + cost <= bound { result.append(w) }
        }
        return result
    }

    private func record(_ schedules: Int, failed: Int, complete: Bool, pruned: Int, coverage: Double?) -> ScheduleRecord.Exploration {
        ScheduleRecord.Exploration(schedules: schedules, failed: failed, complete: complete, bound: settings.preemptions,
                                   schedulesWithoutPruning: nil, pruned: pruned, coverage: complete ? nil : coverage,
                                   shard: settings.shard?.text)
    }

    /// The failing run's decisions, for `replay --schedule`.
    static func encoded(_ outcome: ControlledExecution.Outcome) -> String? {
        switch outcome {
        case .violated(let o), .passed(let o): return o.schedule.encoded
        case .stalled(let report): return report.schedule?.encoded
        default: return nil
        }
    }
}
