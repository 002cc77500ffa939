/// What a scenario trial's rounds came to.
package struct ScenarioRounds: Sendable, Equatable {
    /// Rounds run, warm-up included (every one's outcome is counted).
    public var rounds: Int
    /// Rounds in the measured window.
    public var measuredRounds: Int
    /// Measured rounds per second of the measured window.
    public var roundsPerSecond: Double
    /// Each distinct outcome with its count and grade.
    public var outcomes: [OutcomeCount]
}
