/// One distinct outcome of a scenario trial, as result records give it.
package struct OutcomeCount: Sendable, Codable, Equatable {
    /// The values joined by `, ` (`0, 0`).
    public var outcome: String
    /// Rounds that came to it, warm-up included.
    public var count: Int
    /// `acceptable`, `interesting` or `forbidden`.
    public var grade: String
    /// What an interesting or forbidden outcome means.
    public var meaning: String?
    /// The first round that showed it (0-based, warm-up included): with the
    /// trial's seed and rerun command, where to look for it.
    public var firstRound: Int?

    /// A count.
    public init(outcome: String, count: Int, grade: String, meaning: String? = nil, firstRound: Int? = nil) {
        self.outcome = outcome
        self.count = count
        self.grade = grade
        self.meaning = meaning
        self.firstRound = firstRound
    }
}
