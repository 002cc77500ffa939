/// What a bounded exhaustive exploration runs (`explore:` in a plan,
/// `--explore` on the command line): every schedule of the trial with at
/// most ``preemptions`` preemptions, each from a fresh start.
package struct ExplorationSettings: Sendable, Equatable, Codable {
    /// The most preemptions (switches away from a worker that could have
    /// gone on) a schedule may have.
    package var preemptions: Int
    /// For a workload, the operations each worker runs in every schedule
    /// (a scenario runs one round).
    package var operations: Int
    /// The time budget, after which the search stops and says how much it covered.
    package var budgetNs: UInt64
    /// Whether equivalent schedules are skipped (sleep sets).
    package var pruning: Bool
    /// The share of the schedule space this run explores, `index` of
    /// `count` (1-based); nil for all of it.
    package var shard: Shard?

    /// A share of the schedule space.
    package struct Shard: Sendable, Equatable, Codable {
        package var index: Int
        package var count: Int

        package init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }

        /// Whether the branch at decision `decision` to `worker`, off the
        /// first schedule, is this shard's.
        func owns(decision: Int, worker: Int) -> Bool {
            let hash = SplitMix64.mix(UInt64(decision) &* 0x9E37_79B9 &+ UInt64(worker))
            return Int(hash % UInt64(count)) == index - 1
        }

        /// `i/n`.
        package var text: String { "\(index)/\(count)" }
    }

    /// The defaults: operations per worker, budget.
    package static let defaultOperations = 2
    package static let defaultBudgetNs: UInt64 = 60_000_000_000

    package init(preemptions: Int, operations: Int = ExplorationSettings.defaultOperations,
                 budgetNs: UInt64 = ExplorationSettings.defaultBudgetNs, pruning: Bool = true, shard: Shard? = nil) {
        self.preemptions = preemptions
        self.operations = operations
        self.budgetNs = budgetNs
        self.pruning = pruning
        self.shard = shard
    }
}
