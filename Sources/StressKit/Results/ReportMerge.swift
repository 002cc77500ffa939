import Foundation

/// Why result files cannot be merged.
public struct MergeError: Error, Sendable, CustomStringConvertible {
    /// One line per problem.
    public var problems: [String]
    /// One problem per line.
    public var description: String { problems.map { "error: \($0)" }.joined(separator: "\n") }
}

extension RunReport {
    /// Combines the results of shards of one plan (`stressbench merge`) into one
    /// report, trials in matrix order.
    ///
    /// Refuses, naming the files: a schema this version does not write, files
    /// from different plans, a trial that appears twice, and two files that
    /// disagree on which trial sits at a matrix position (the plan changed
    /// between the shards). The gate is not carried over: run `compare` on the
    /// merged file.
    public static func merge(_ reports: [(file: String, report: RunReport)]) throws(MergeError) -> RunReport {
        var problems: [String] = []
        guard let first = reports.first else { throw MergeError(problems: ["nothing to merge: name at least one results file"]) }
        for (file, r) in reports where r.schema != currentSchema {
            problems.append("\(file): schema '\(r.schema)' cannot be merged by this stressbench, which writes '\(currentSchema)'")
        }
        for (file, r) in reports.dropFirst() where r.plan != first.report.plan {
            problems.append("\(file) is from plan '\(r.plan)' but \(first.file) is from plan '\(first.report.plan)': merge shards of one plan")
        }
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
                    problems.append("matrix position \(t.trial.index) is '\(seen.id)' in \(seen.file) but '\(t.trial.id)' in \(file): the plan changed between the runs")
                    continue
                }
                byId[t.trial.id] = file
                byIndex[t.trial.index] = (t.trial.id, file)
                trials.append(t)
            }
        }
        guard problems.isEmpty else { throw MergeError(problems: problems) }
        var merged = first.report
        merged.trials = trials.sorted { $0.trial.index < $1.trial.index }
        merged.startedAt = reports.map(\.report.startedAt).min()!
        merged.finishedAt = reports.map(\.report.finishedAt).max()!
        merged.interrupted = reports.contains { $0.report.interrupted }
        merged.stop = reports.lazy.compactMap(\.report.stop).first
        merged.gate = nil
        return merged
    }
}
