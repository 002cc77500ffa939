import Foundation
import StressCore

/// What `explore` (the plan key) and `--explore` (the option) accept, and
/// the option's text form, which rerun commands print back.
package enum ExplorationLimits {
    /// The most preemptions a search may allow. The schedules with at most
    /// K preemptions grow roughly as (decisions × workers)^K, so a bound
    /// past a handful never finishes even on a tiny scenario; bugs need few
    /// (the shipped ones at most 2, as iterative context bounding's users
    /// report), and 8 leaves room to try well past that.
    package static let preemptions = 0...8
    /// Operations per worker of an explored workload: each one multiplies
    /// the schedules, so a search of more than a few dozen never finishes.
    package static let operations = 1...64
    /// The time budget, in whole seconds: up to a day.
    package static let seconds = 1...86_400
    /// The shrink bound, in whole seconds (`shrink: { seconds: N }`,
    /// `--shrink-seconds N`): up to an hour.
    package static let shrinkSeconds = 1...3_600

    /// The keys of `explore:`, and of `--explore`'s text.
    package static let keys = ["preemptions", "operations", "seconds", "pruning"]

    /// `--explore`'s form, for messages.
    package static let flagForm = "preemptions=K[,operations=M][,seconds=S][,pruning=off]"

    /// The settings `--explore` gives (`preemptions=2,operations=3,seconds=30,pruning=off`);
    /// throws a message naming what is wrong.
    package static func parse(flag text: String) throws(ExplorationFlagError) -> ExplorationSettings {
        var values: [String: String] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).trimmingCharacters(in: .whitespaces)
            }
            guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else {
                throw ExplorationFlagError("'\(String(part).terminalSafe)' is not key=value; expected \(flagForm)")
            }
            guard keys.contains(pair[0]) else {
                throw ExplorationFlagError("unknown key '\(pair[0].terminalSafe)' (expected \(keys.joined(separator: ", ")))")
            }
            guard values[pair[0]] == nil else { throw ExplorationFlagError("'\(pair[0])' is given twice") }
            values[pair[0]] = pair[1]
        }
        guard values["preemptions"] != nil else {
            throw ExplorationFlagError("preemptions is required (the most preemptions a schedule may have): expected \(flagForm)")
        }
        func number(_ key: String, _ range: ClosedRange<Int>) throws(ExplorationFlagError) -> Int? {
            guard let text = values[key] else { return nil }
            guard let v = Int(text), range.contains(v) else {
                throw ExplorationFlagError("\(key) expects a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text.terminalSafe)'")
            }
            return v
        }
        // Present, so a number or thrown.
        var settings = ExplorationSettings(preemptions: try number("preemptions", preemptions) ?? 0)
        if let m = try number("operations", operations) { settings.operations = m }
        if let s = try number("seconds", seconds) { settings.budgetNs = UInt64(s) * 1_000_000_000 }
        if let p = values["pruning"] {
            switch p.lowercased() {
            case "on", "true", "yes": settings.pruning = true
            case "off", "false", "no": settings.pruning = false
            default: throw ExplorationFlagError("pruning expects on or off, got '\(p.terminalSafe)'")
            }
        }
        return settings
    }

    /// `settings` as `--explore` takes it back: `preemptions=K`, then what
    /// differs from the defaults (the shard is not part of it: `--shard`
    /// gives it).
    package static func flag(_ settings: ExplorationSettings) -> String {
        var parts = ["preemptions=\(settings.preemptions)"]
        if settings.operations != ExplorationSettings.defaultOperations { parts.append("operations=\(settings.operations)") }
        if settings.budgetNs != ExplorationSettings.defaultBudgetNs {
            parts.append("seconds=\((settings.budgetNs + 999_999_999) / 1_000_000_000)")
        }
        if !settings.pruning { parts.append("pruning=off") }
        return parts.joined(separator: ",")
    }
}

/// What is wrong with `--explore`'s text.
package struct ExplorationFlagError: Error, CustomStringConvertible {
    /// The message, without the option's name.
    package var description: String

    init(_ description: String) { self.description = description }
}
