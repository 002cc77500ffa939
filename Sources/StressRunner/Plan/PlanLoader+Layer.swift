import StressCore
import Yams

extension PlanLoader {
    /// The keys `defaults` and an experiment share, as read from one level.
    struct Layer {
        var strategies: [StrategyChoice]?
        var threads: [Int]?
        var stop: StopCondition?
        var repetitions: Int?
        var seed: UInt64?
        var warmup: UInt64?
        var timeout: UInt64??
        var deadlockAfter: UInt64?
        var fuzz: FuzzSettings?
        var timing: TimingSettings?
        var allocators: [AllocatorKind]?
        var load: LoadSettings?
        var stopOnViolation: Bool?
        var interpose: Bool?
        var executor: ExecutorChoice?
        var schedule: ScheduleMode?
        var maxDecisions: Int?
        var shrinkNs: UInt64?
        var exploration: ExplorationSettings?
        var huntNs: UInt64?
        /// Where `schedule` and `explore` were given, for the check that an
        /// exploration is not made free.
        var scheduleAt: (node: Node, path: PlanKeyPath)?
        var exploreAt: (node: Node, path: PlanKeyPath)?
        /// Where `load` was given, for the check that a controlled schedule
        /// does not pace.
        var loadAt: (node: Node, path: PlanKeyPath)?
        /// Where `timeout` and `deadlock_after` were given at this level, for
        /// the check that one is shorter than the other.
        var timeoutAt: (node: Node, path: PlanKeyPath)?
        var deadlockAfterAt: (node: Node, path: PlanKeyPath)?
        /// Where `fuzz` was given, for the check that its pauses fit the trial.
        var fuzzAt: (node: Node, path: PlanKeyPath)?
        /// Where `threads` was given, for a scenario's check against its roles.
        var threadsAt: (node: Node, path: PlanKeyPath)?
        /// `expect` as given, read once the experiment's strategies and
        /// thread counts are known (in `defaults`, read on its own: ``expect``).
        var expectAt: (node: Node, path: PlanKeyPath)?
        /// `defaults.expect`, read.
        var expect: Expectation?
    }
}
