import Foundation
import StressKit

/// How `replay` reaches a trial id whose repetition is past the plan's
/// count, and what it says when an id matches no trial or several.
///
/// A trial's seed derives from the experiment's base seed, its name, the
/// thread count and the repetition's number (``TrialMatrix/seed(base:experiment:threads:repetition:)``),
/// and a portfolio's profile from the number too: never from how many
/// repetitions there are. So `…/r7` is the same trial in a run of 8
/// repetitions as in one of 100, and replay can make it from a plan of 1.
enum ReplayRepetition {
    /// The plan and options that make trial `id` exist, with a line saying
    /// what was done; nil when `id` names no repetition (`/rN`), or its cell
    /// is not in the plan, or the repetition exists already.
    static func reach(_ id: String, plan: Plan, options: RunOptions, registry: StressRegistry) -> (plan: Plan, options: RunOptions, note: String)? {
        // The most repetitions a plan or --repetitions may ask for.
        guard let (cell, repetition) = split(id), repetition < 100_000 else { return nil }
        var narrowed = options
        narrowed.only = [cell]
        let existing = PlanRunner(registry: registry, options: narrowed).selectedTrials(of: plan).filter { cellOf($0.id) == cell }
        guard let first = existing.first, repetition >= existing.count else { return nil }
        var widened = plan
        var options = options
        // The --repetitions override applies to every experiment; applied
        // here instead, so that only this trial's experiment grows.
        if let all = options.repetitions {
            for i in widened.experiments.indices { widened.experiments[i].repetitions = all }
            options.repetitions = nil
        }
        guard let e = widened.experiments.firstIndex(where: { $0.name == first.experiment }) else { return nil }
        widened.experiments[e].repetitions = repetition + 1
        guard TrialMatrix.sizeProblem(widened) == nil else { return nil }
        let note = "\(cell) has \(existing.count) repetition(s) here; r\(repetition) is replayed as a run with "
            + "--repetitions \(repetition + 1) made it (a trial's seed derives from its repetition's number, not from the count)"
        return (widened, options, note)
    }

    /// Why `--only id` does not name exactly one trial, and what to give instead.
    static func mismatch(_ id: String, matched: [TrialSpec], plan: Plan, runner: PlanRunner) -> String {
        let safe = id.terminalSafe
        if !matched.isEmpty {
            let ids = matched.prefix(3).map(\.id).joined(separator: ", ")
            return "--only must name exactly one trial; '\(safe)' matches \(matched.count) (\(ids)\(matched.count > 3 ? ", ..." : "")): add /rN to pick a repetition"
        }
        let cells = Array(Set(runner.matrix(of: plan).map { cellOf($0.id) })).sorted()
        let shown = cells.prefix(5).joined(separator: ", ") + (cells.count > 5 ? ", ..." : "")
        return "--only must name exactly one trial; '\(safe)' matches none of this plan's trials, whose ids are "
            + "experiment/strategy[/allocator]/tN/rN (cells: \(shown))"
    }

    /// `e/s/t2` and 7 for `e/s/t2/r7`; nil for an id without a repetition.
    static func split(_ id: String) -> (cell: String, repetition: Int)? {
        guard let slash = id.lastIndex(of: "/") else { return nil }
        let last = id[id.index(after: slash)...]
        guard last.first == "r", let n = Int(last.dropFirst()), n >= 0, last.dropFirst().allSatisfy(\.isNumber) else { return nil }
        return (String(id[..<slash]), n)
    }

    /// A trial id without its repetition.
    private static func cellOf(_ id: String) -> String { split(id)?.cell ?? id }
}
