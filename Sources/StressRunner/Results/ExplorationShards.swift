import StressCore

/// The records of one explored trial split over machines (`--explore ...
/// --shard i/n`: each shard explores its part of the schedule space), put
/// back together by `merge` into the one record a whole exploration writes.
///
/// A shard's record says which part it covers (`exploration.shard`); the
/// trial itself, its id and position in the plan, is the same in every
/// shard's file, which is how `merge` tells them from a trial merged twice.
package enum ExplorationShards {
    /// What combining the files' shard records gave.
    package struct Combined {
        /// The files, each explored trial's shards replaced by one combined
        /// record in the file that held its first, and gone from the others.
        package var reports: [(file: String, report: RunReport)]
        /// One line per explored trial whose shards did not all come:
        /// `trial 'x': exploration shard(s) 2/4 missing: ...`.
        package var notes: [String]
        /// What cannot be combined (a shard twice, shards of different
        /// splits or bounds), one line each.
        package var problems: [String]
    }

    /// Combines, in `reports`, the shard records of each explored trial (see
    /// ``combined(_:count:)``); trials not explored in shards are left alone.
    package static func combine(_ reports: [(file: String, report: RunReport)]) -> Combined {
        var result = Combined(reports: reports, notes: [], problems: [])
        // Where each sharded trial's records are, in file order.
        var places: [String: [(file: Int, trial: Int)]] = [:]
        var order: [String] = []
        for (f, entry) in reports.enumerated() {
            for (t, record) in entry.report.trials.enumerated() where record.exploration?.shard != nil {
                if places[record.trial.id] == nil { order.append(record.trial.id) }
                places[record.trial.id, default: []].append((f, t))
            }
        }
        var remove: [Int: Set<Int>] = [:]
        for id in order {
            let at = places[id]!
            var shards: [(index: Int, record: TrialResult)] = []
            var count: Int?
            var problems: [String] = []
            var seen: [Int: String] = [:]
            for (f, t) in at {
                let file = reports[f].file, record = reports[f].report.trials[t], text = record.exploration!.shard!
                guard let shard = try? TrialShard(parsing: text) else {
                    problems.append("trial '\(id)' in \(file): exploration shard '\(text)' is not i/n (shard i of n, from 1)")
                    continue
                }
                if let count, count != shard.count {
                    problems.append("trial '\(id)': exploration shard \(text) in \(file) is of another split than shard(s) of \(count) before it: merge the shards of one --shard i/n split")
                    continue
                }
                if let earlier = seen[shard.index] {
                    problems.append("exploration shard \(text) of trial '\(id)' is in both \(earlier) and \(file): was a shard merged twice?")
                    continue
                }
                if let first = shards.first, first.record.exploration!.bound != record.exploration!.bound {
                    problems.append("trial '\(id)': exploration shard \(text) in \(file) has at most \(record.exploration!.bound) preemptions, "
                                    + "shard(s) before it \(first.record.exploration!.bound): merge the shards of one exploration")
                    continue
                }
                count = shard.count
                seen[shard.index] = file
                shards.append((shard.index, record))
            }
            // Its other records go either way: the problem is said once, here,
            // not again as a trial that appears twice.
            for (f, t) in at.dropFirst() { remove[f, default: []].insert(t) }
            guard problems.isEmpty, let count else {
                result.problems += problems
                continue
            }
            let missing = (1...count).filter { seen[$0] == nil }
            if !missing.isEmpty {
                result.notes.append("note: trial '\(id)': exploration shard(s) \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) missing "
                                    + "from the files merged: its merged exploration covers \(shards.count) of \(count) shards and is not complete")
            }
            let (f, t) = at[0]
            result.reports[f].report.trials[t] = combined(shards, count: count)
        }
        for (f, gone) in remove {
            result.reports[f].report.trials = result.reports[f].report.trials.enumerated().filter { !gone.contains($0.offset) }.map(\.element)
        }
        return result
    }

    /// One record for the shards of one explored trial, `shards` being the
    /// ones present of `count`: schedules, failures and pruning summed;
    /// complete only when every shard is present and complete; the failing
    /// schedule, the outcome, trace and everything else the first failing
    /// shard's (by shard number), or the first shard's when none failed.
    /// Coverage, for an incomplete result, is the shards' mean (each counted
    /// as an equal share; a missing one as none), nil when a shard present
    /// and incomplete did not estimate its own.
    package static func combined(_ shards: [(index: Int, record: TrialResult)], count: Int) -> TrialResult {
        let sorted = shards.sorted { $0.index < $1.index }
        let explorations = sorted.map { $0.record.exploration! }
        let failing = sorted.first { $0.record.exploration!.failed > 0 }
        var merged = (failing ?? sorted[0]).record
        let complete = sorted.count == count && explorations.allSatisfy(\.complete)
        let shares = explorations.map { $0.complete ? 1 : $0.coverage }
        let unpruned = explorations.map(\.schedulesWithoutPruning)
        merged.exploration = ScheduleRecord.Exploration(
            schedules: explorations.map(\.schedules).reduce(0, +),
            failed: explorations.map(\.failed).reduce(0, +),
            complete: complete,
            bound: explorations[0].bound,
            schedulesWithoutPruning: unpruned.contains(nil) ? nil : unpruned.map { $0! }.reduce(0, +),
            pruned: explorations.map(\.pruned).reduce(0, +),
            coverage: complete || shares.contains(nil) ? nil : shares.map { $0! }.reduce(0, +) / Double(count),
            shard: nil,
            failingSchedule: failing?.record.exploration!.failingSchedule)
        return merged
    }
}

extension RunReport {
    /// The notes `merge` prints for explored trials whose shards did not
    /// all come (``ExplorationShards/Combined/notes``).
    package static func explorationShardNotes(_ reports: [(file: String, report: RunReport)]) -> [String] {
        ExplorationShards.combine(reports).notes
    }
}
