extension ScheduleRecord {
    /// How a failed controlled trial's schedule was shrunk: the record's
    /// `shrink` object. The harness replays smaller schedules (fewer
    /// preemptions, then fewer operations per worker, then fewer events) and
    /// keeps each one that still fails the same way; the record's `trace` and
    /// `schedule` are then the smallest one's.
    public struct Shrinking: Sendable, Codable, Equatable {
        /// The trace's events before shrinking, and after.
        public var eventsBefore: Int
        /// The shrunk trace's events: the record's `trace` is this long
        /// (before folding).
        public var eventsAfter: Int
        /// Preemptions (switches away from a worker that could have gone on)
        /// before shrinking, and after.
        public var preemptionsBefore: Int
        /// The shrunk schedule's preemptions: the fewest the shrinking
        /// found that still fail the same way.
        public var preemptionsAfter: Int
        /// The shrunk schedule, for `replay --schedule` (the encoding of
        /// ``ScheduleRecord/encoded``).
        public var encoded: String
        /// Candidate schedules replayed while shrinking.
        public var attempts: Int
        /// Whether shrinking stopped at its time bound before it was done (the
        /// result is then smaller, not smallest).
        public var timedOut: Bool
        /// The operations each worker ran in the shrunk schedule (a
        /// scenario's: rounds), when shrinking cut them; `replay --ops`
        /// with ``encoded`` reruns it. Nil when the trial's own stop holds.
        public var operations: Int?
        /// The workers that ran operations in the shrunk schedule, when
        /// shrinking left the others idle: the ones the failure involves,
        /// from 0 (`replay --busy-workers` with ``encoded`` reruns it). Nil
        /// when all ran.
        public var busyWorkers: [Int]? {
            get { busy?.workers }
            set { busy = newValue.map(BusyWorkers.init) }
        }
        /// ``busyWorkers`` as the runner passes it on (a record written when
        /// this was a count of the first workers still reads).
        package var busy: BusyWorkers?

        enum CodingKeys: String, CodingKey {
            case eventsBefore, eventsAfter, preemptionsBefore, preemptionsAfter, encoded, attempts, timedOut, operations
            case busy = "busyWorkers"
        }

        /// A record.
        ///
        /// - Parameters:
        ///   - eventsBefore: Events of the failing trace.
        ///   - eventsAfter: Events of the shrunk one.
        ///   - preemptionsBefore: Preemptions of the failing schedule.
        ///   - preemptionsAfter: Preemptions of the shrunk one.
        ///   - encoded: The shrunk schedule's text.
        ///   - attempts: Candidates replayed.
        ///   - timedOut: Whether the time bound ended it.
        public init(eventsBefore: Int, eventsAfter: Int, preemptionsBefore: Int, preemptionsAfter: Int, encoded: String,
                    attempts: Int, timedOut: Bool) {
            self.eventsBefore = eventsBefore
            self.eventsAfter = eventsAfter
            self.preemptionsBefore = preemptionsBefore
            self.preemptionsAfter = preemptionsAfter
            self.encoded = encoded
            self.attempts = attempts
            self.timedOut = timedOut
        }
    }
}
