import StressCore
import StressRunner

extension StressTestFailure {
    /// The budget the message offers: ten seconds found every shipped bug's
    /// free failure at the first controlled trial (docs/running.md).
    static let offeredHuntSeconds = 10

    /// What the message says of a free-running failure's hunt under control,
    /// as the CLI report says it of `run --hunt`: without a hunt, the one
    /// line that offers ``StressTest/hunt(seconds:)``; after one, the
    /// controlled trial it found (its problem, interleaving and shrinking,
    /// and how to replay it), or that none was found in the budget. Empty
    /// for a failure control cannot run (a crash, tasks) and for a
    /// controlled trial, which draws its own interleaving.
    var huntLines: [String] {
        guard let hunt = trial.hunt else {
            guard trial.huntCommand != nil else { return [] }
            return ["explain it under control: add .hunt(seconds: \(Self.offeredHuntSeconds)) to this StressTest; it then hunts for "
                    + "this failure in controlled trials and draws the interleaving of one that fails the same way"]
        }
        let spent = TrialResult.huntSeconds(hunt.seconds)
        guard hunt.found, let found = hunt.result else {
            return ["hunted under control: not found in \(hunt.attempts) controlled trial(s), \(spent); "
                    + "a longer .hunt(seconds:) tries more seeds"]
        }
        var lines = ["found under control (seed \(found.trial.seed); \(hunt.attempts) controlled trial(s), \(spent))"
                     + (found.problemLine.isEmpty ? "" : ": \(found.outcome.rawValue): \(found.problemLine)")]
        lines += TraceText.block(found) ?? []
        if let shrink = found.shrink { lines.append(TraceText.shrinkLine(shrink)) }
        lines.append("replay it: add .schedule(.controlled).fuzz(.\(HuntRecord.policy.rawValue)) to this StressTest, then "
                     + report.rerunCommand(for: found))
        return lines
    }
}
