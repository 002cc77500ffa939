import Foundation
import StressCore

/// Why result files cannot be merged.
package struct MergeError: Error, Sendable, CustomStringConvertible {
    /// One line per problem.
    public var problems: [String]
    /// One problem per line.
    public var description: String { problems.map { "error: \($0)" }.joined(separator: "\n") }
}

extension RunReport {
    /// Combines the results of shards of one plan (`stressbench merge`) into one
    /// report, trials in the plan's order (by their `index`).
    ///
    /// Refuses, naming the files: a schema this version does not write, files
    /// from different plans, a trial that appears twice, two files that
    /// disagree on which trial sits at a position of the plan's order or on the matrix's
    /// size (the plan changed between the shards), shards of different splits
    /// (`1/3` with `2/4`), and, unless `allowPartial`, a set that does not
    /// cover the whole matrix (a shard missing, or a shard's run interrupted
    /// or cut short by `--only` or `--fail-fast`). Files written before
    /// results recorded the matrix size cannot be checked for completeness.
    /// The gate is not carried over: run `compare` on the merged file.
    ///
    /// The shards of an explored trial (records of one trial whose
    /// `exploration.shard` differ) become one record first
    /// (``ExplorationShards``); a shard of one missing is not an error, the
    /// merged exploration is then not complete (``explorationShardNotes(_:)``
    /// says which are missing).
    package static func merge(_ reports: [(file: String, report: RunReport)], allowPartial: Bool = false) throws(MergeError) -> RunReport {
        let explored = ExplorationShards.combine(reports)
        let reports = explored.reports
        var problems: [String] = explored.problems
        guard let first = reports.first else { throw MergeError(problems: ["nothing to merge: name at least one results file"]) }
        for (file, r) in reports where r.schema != currentSchema {
            problems.append("\(file): schema '\(r.schema)' cannot be merged by this stressbench, which writes '\(currentSchema)'")
        }
        for (file, r) in reports.dropFirst() where r.plan != first.report.plan {
            problems.append("\(file) is from plan '\(r.plan)' but \(first.file) is from plan '\(first.report.plan)': merge shards of one plan")
        }
        problems += shardProblems(reports)
        var byId: [String: String] = [:]
        var byIndex: [Int: (id: String, file: String)] = [:]
        var trials: [TrialResult] = []
        for (file, r) in reports {
            for t in r.trials {
                if let other = byId[t.trial.id] {
                    problems.append("trial '\(t.trial.id)' appears in both \(other) and \(file)" + (other == file ? " (twice)" : "") + ": was a shard merged twice?")
                    continue
                }
                if let seen = byIndex[t.trial.index], seen.id != t.trial.id {
                    problems.append("position \(t.trial.index) of the plan's order is '\(seen.id)' in \(seen.file) but '\(t.trial.id)' in \(file): the plan changed between the runs")
                    continue
                }
                byId[t.trial.id] = file
                byIndex[t.trial.index] = (t.trial.id, file)
                trials.append(t)
            }
        }
        let size = reports.compactMap(\.report.matrixTrials).first
        if problems.isEmpty, !allowPartial, let size, reports.allSatisfy({ $0.report.matrixTrials != nil }) {
            problems += completenessProblems(reports, matrixTrials: size, present: Set(byIndex.keys))
        }
        guard problems.isEmpty else { throw MergeError(problems: problems) }
        var merged = first.report
        merged.shard = nil
        merged.matrixTrials = size
        merged.trials = trials.sorted { $0.trial.index < $1.trial.index }
        merged.startedAt = reports.map(\.report.startedAt).min()!
        merged.finishedAt = reports.map(\.report.finishedAt).max()!
        merged.interrupted = reports.contains { $0.report.interrupted }
        merged.stop = reports.lazy.compactMap(\.report.stop).first
        merged.gate = nil
        return merged
    }

    /// One warning for each file measured in another environment than the
    /// first (another CPU, core count, quota, build or compiler): the merged
    /// trials then mix machines, while the merged file's `environment` is the
    /// first file's. Each trial keeps its own environment. Empty when all agree.
    package static func environmentWarnings(_ reports: [(file: String, report: RunReport)]) -> [String] {
        guard let first = reports.first else { return [] }
        return reports.dropFirst().compactMap { file, r in
            let differences = r.environment.changes(from: first.report.environment).map {
                "\($0.what): \($0.before) in \(first.file), \($0.after) in \(file)"
            }
            guard !differences.isEmpty else { return nil }
            return "warning: \(file) was measured in another environment than \(first.file) ("
                + differences.joined(separator: "; ") + "): the merged figures mix the two, "
                + "and the merged file's environment line is \(first.file)'s (each trial keeps its own)"
        }
    }

    /// Files that disagree on the matrix size, mix splits, or repeat a shard.
    private static func shardProblems(_ reports: [(file: String, report: RunReport)]) -> [String] {
        var problems: [String] = []
        let sizes = reports.compactMap { r in r.report.matrixTrials.map { (r.file, $0) } }
        if let (file, size) = sizes.first, let other = sizes.first(where: { $0.1 != size }) {
            problems.append("\(file) has a matrix of \(size) trial(s) but \(other.0) one of \(other.1): the plan changed between the runs")
        }
        let shards = reports.compactMap { r in r.report.shard.map { (r.file, $0) } }
        if let (file, shard) = shards.first, let other = shards.first(where: { $0.1.count != shard.count }) {
            problems.append("\(file) is shard \(shard) but \(other.0) is shard \(other.1): merge the shards of one --shard i/n split")
        }
        var seen: [Int: String] = [:]
        for (file, shard) in shards {
            if let earlier = seen[shard.index] {
                problems.append("shard \(shard) is in both \(earlier) and \(file): was a shard merged twice?")
            }
            seen[shard.index] = file
        }
        return problems
    }

    /// What is missing when `present` (matrix positions) does not cover the
    /// whole matrix.
    private static func completenessProblems(_ reports: [(file: String, report: RunReport)], matrixTrials: Int, present: Set<Int>) -> [String] {
        let missing = (0..<matrixTrials).filter { !present.contains($0) }
        guard !missing.isEmpty else { return [] }
        var text = "the files hold \(present.count) of the plan's \(matrixTrials) trials"
        let shards = reports.compactMap(\.report.shard)
        if let count = shards.first?.count {
            let absent = (1...count).filter { i in !shards.contains { $0.index == i } }
            if !absent.isEmpty { text += ": shard(s) \(absent.map { "\($0)/\(count)" }.joined(separator: ", ")) missing" }
        }
        let cut = reports.filter { $0.report.interrupted }.map(\.file)
        if !cut.isEmpty { text += "; interrupted: \(cut.joined(separator: ", "))" }
        return [text + " (pass --allow-partial to merge them anyway)"]
    }
}
