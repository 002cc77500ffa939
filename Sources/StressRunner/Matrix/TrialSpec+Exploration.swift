import StressCore

extension TrialSpec {
    /// The bounded exhaustive exploration a trial runs, as its record
    /// carries it (the JSON's `explore`): the fields of the engine's
    /// ``ExplorationSettings``, the shard as its `i/n` text, and hashable,
    /// as a spec is.
    package struct Exploration: Sendable, Codable, Hashable {
        /// The most preemptions a schedule may have.
        package var preemptions: Int
        /// A workload's operations per worker (a scenario runs one round).
        package var operations: Int
        /// The time budget.
        package var budgetNs: UInt64
        /// Whether equivalent schedules are skipped.
        package var pruning: Bool
        /// The share of the schedule space explored (`2/4`); nil for all of it.
        package var shard: String?

        /// The record of `settings`.
        package init(_ settings: ExplorationSettings) {
            preemptions = settings.preemptions
            operations = settings.operations
            budgetNs = settings.budgetNs
            pruning = settings.pruning
            shard = settings.shard.map { "\($0.index)/\($0.count)" }
        }

        /// The engine's settings (a shard that is not `i/n` is dropped: the
        /// whole space is explored).
        package var settings: ExplorationSettings {
            let split = shard.flatMap { try? TrialShard(parsing: $0) }
            return ExplorationSettings(preemptions: preemptions, operations: operations, budgetNs: budgetNs, pruning: pruning,
                                       shard: split.map { ExplorationSettings.Shard(index: $0.index, count: $0.count) })
        }
    }

    /// The bounded exhaustive exploration the trial runs instead of one
    /// execution (the plan's `explore`, `--explore`); nil for one execution.
    /// Only a controlled trial explores: making it free clears this.
    package var exploration: ExplorationSettings? {
        get { explorationGiven?.settings }
        set { explorationGiven = newValue.map(Exploration.init) }
    }
}
