extension ScheduleRecord {
    /// What a bounded exhaustive exploration did (`--explore preemptions=K`):
    /// the record's `exploration` object. Every schedule with at most ``bound``
    /// preemptions was run (or, with ``complete`` false, the share ``coverage``
    /// of them before the time budget ran out), and ``failed`` of them failed.
    public struct Exploration: Sendable, Codable, Equatable {
        /// How many schedules the search ran, each from a fresh start.
        public var schedules: Int
        /// Of those, how many failed (exploration stops at the first failure,
        /// so 0 or 1).
        public var failed: Int
        /// Whether every schedule within the bound was run (or this shard's
        /// share of them): true means "correct in every interleaving with at
        /// most ``bound`` preemptions" when ``failed`` is 0.
        public var complete: Bool
        /// The most preemptions a schedule may have.
        public var bound: Int
        /// Schedules that the search would have run without its reduction
        /// (sleep sets), where it counted them; nil when not counted.
        public var schedulesWithoutPruning: Int?
        /// Schedules the reduction skipped as equivalent to one already run.
        public var pruned: Int
        /// With ``complete`` false: the estimated share of the schedule space
        /// covered, 0 to 1.
        public var coverage: Double?
        /// The shard of the space this record covers (`i/n`), nil for all of it.
        public var shard: String?
        /// The first failing schedule, for `replay --schedule`.
        public var failingSchedule: String?

        /// A record.
        ///
        /// - Parameters:
        ///   - schedules: Schedules run.
        ///   - failed: How many failed.
        ///   - complete: Whether the whole bounded space (or shard) was run.
        ///   - bound: The preemption bound.
        ///   - schedulesWithoutPruning: The count without the reduction, if counted.
        ///   - pruned: Schedules skipped as equivalent.
        ///   - coverage: The share covered when not complete.
        ///   - shard: The shard, `i/n`.
        ///   - failingSchedule: The first failing schedule's text.
        public init(schedules: Int, failed: Int, complete: Bool, bound: Int, schedulesWithoutPruning: Int? = nil, pruned: Int = 0,
                    coverage: Double? = nil, shard: String? = nil, failingSchedule: String? = nil) {
            self.schedules = schedules
            self.failed = failed
            self.complete = complete
            self.bound = bound
            self.schedulesWithoutPruning = schedulesWithoutPruning
            self.pruned = pruned
            self.coverage = coverage
            self.shard = shard
            self.failingSchedule = failingSchedule
        }
    }
}
