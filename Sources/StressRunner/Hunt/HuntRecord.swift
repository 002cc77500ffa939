import StressCore

/// What hunting under control found for a trial that failed free-running:
/// controlled trials of the same cell, one seed after another, until one
/// failed the same way or the budget ran out (`run --hunt SECONDS`, the
/// plan's `hunt`, `StressTest.hunt(seconds:)`).
///
/// A free-running failure has no trace (the operating system chose every
/// switch); a controlled one that fails the same way does, and its record is
/// kept here whole (``result``) so the report can draw its interleaving under
/// the free failure.
package struct HuntRecord: Sendable, Codable, Equatable {
    /// Whether a controlled trial failed the same way.
    package var found: Bool
    /// How many controlled trials ran.
    package var attempts: Int
    /// How long the hunt took, in seconds.
    package var seconds: Double
    /// The seed of the controlled trial that failed the same way; nil when
    /// none did.
    package var seed: UInt64?
    /// The command that reruns the controlled trial that was found, or, when
    /// none was, the command that goes on hunting (``RerunCommand/hunt(_:planFile:)``).
    package var trial: String
    /// The found controlled trial's own record. An array of at most one,
    /// because a record may hold a record only through storage of its own;
    /// the JSON holds it as one object, `result`.
    private var foundResult: [TrialResult]

    /// A hunt's record; `result` is the controlled trial that failed the same way.
    package init(found: Bool, attempts: Int, seconds: Double, seed: UInt64?, trial: String, result: TrialResult?) {
        self.found = found
        self.attempts = attempts
        self.seconds = seconds
        self.seed = seed
        self.trial = trial
        foundResult = result.map { [$0] } ?? []
    }

    /// The controlled trial that failed the same way: its trace, shrinking
    /// and schedule. Nil when none did.
    package var result: TrialResult? { foundResult.first }

    private enum CodingKeys: String, CodingKey {
        case found, attempts, seconds, seed, trial, result
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        found = try c.decode(Bool.self, forKey: .found)
        attempts = try c.decode(Int.self, forKey: .attempts)
        seconds = try c.decode(Double.self, forKey: .seconds)
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed)
        trial = try c.decode(String.self, forKey: .trial)
        foundResult = try c.decodeIfPresent(TrialResult.self, forKey: .result).map { [$0] } ?? []
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(found, forKey: .found)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(seconds, forKey: .seconds)
        try c.encodeIfPresent(seed, forKey: .seed)
        try c.encode(trial, forKey: .trial)
        try c.encodeIfPresent(result, forKey: .result)
    }
}

extension HuntRecord {
    /// The policy a hunt's controlled trials run under, and the offered
    /// command names: `yield`'s random walk. On the shipped bugs' lost
    /// update, check-then-act and stale snapshot (2 strategies, 10 seeds
    /// each) it failed 60 times in 60, where PCT, whose few change points
    /// suit bugs that need a switch at one place, missed check-then-act's
    /// overdraft 14 times in 20.
    package static let policy: FuzzProfile = .yield
    /// How many controlled repetitions the offered command runs.
    package static let offeredRepetitions = 10
    /// The outcomes a hunt looks for: the code under test's own failures.
    /// A crash or an error is the process's, and a timeout says nothing a
    /// controlled trial could trace.
    package static let huntedOutcomes: Set<TrialOutcome> = [.violated, .deadlock, .hang]
    /// The longest hunt for one failure, in seconds (`--hunt`, the plan's
    /// `hunt`, `StressTest.hunt(seconds:)`): an hour, past which a
    /// failure control finds at all has long been found.
    package static let longestSeconds = 3_600
}
