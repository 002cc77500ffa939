/// What the watchdog saw when no worker completed an operation for too long.
public struct StallReport: Sendable, Codable, Equatable {
    /// `deadlock` when every unfinished worker was waiting on another party;
    /// `hang` when at least one was running (an endless loop, a very long op).
    public enum Kind: String, Sendable, Codable {
        /// Every unfinished worker was waiting on another party.
        case deadlock
        /// At least one unfinished worker was running.
        case hang
    }

    /// Whether it was a deadlock or a hang.
    public var kind: Kind
    // In nanoseconds, as the results' JSON has them; ``stalledFor`` and
    // ``beganAfter`` are the public face.
    package var stalledForNanoseconds: Int
    package var beganAfterNanoseconds: Int?
    /// Where every worker was.
    public var workers: [StalledWorker]
    /// The wait-for cycle, when there is one: one line per edge, e.g.
    /// "worker 0 holds resource 0 and waits for resource 1, held by worker 1".
    public var cycle: [String]?
    /// One paragraph for terminals.
    public var summary: String
    /// True when only some workers stalled while the others went on
    /// completing operations (``workers`` still lists every worker); nil
    /// when the whole trial stalled.
    public var partial: Bool?
    /// A controlled trial's decisions up to the stall (its `deadlock` is
    /// found at once, with the decision that made it); nil for a
    /// free-running trial.
    public var schedule: ScheduleRecord?
    /// A controlled trial's events up to the stall, for the trial record's
    /// `trace` (not part of this report's own JSON).
    package var trace: [TraceEvent]?
    /// A controlled trial's events noted in all (the trace keeps the last ones).
    package var traceEventCount: Int?
    /// A controlled trial's preemptions up to the stall.
    package var preemptions: Int?
    /// A controlled execution's decisions with their alternatives, when kept
    /// (shrinking's and exploration's runs).
    var choices: [ControlledScheduler.Choice]?
    /// How shrinking cut the stalled trial's schedule, for the trial record's `shrink`.
    package var shrink: ScheduleRecord.Shrinking?
    /// The exploration that ended at this stall, for the trial record's `exploration`.
    package var exploration: ScheduleRecord.Exploration?

    /// A report of a stall of `kind` found after `stalledForNs` nanoseconds without progress.
    package init(kind: Kind, stalledForNs: Int, beganAfterNs: Int? = nil, workers: [StalledWorker], cycle: [String]?,
                summary: String, partial: Bool? = nil) {
        self.kind = kind
        self.stalledForNanoseconds = stalledForNs
        self.beganAfterNanoseconds = beganAfterNs
        self.workers = workers
        self.cycle = cycle
        self.summary = summary
        self.partial = partial
    }

    /// The results' JSON keys: the nanosecond fields keep the names they
    /// had when they were public integers.
    private enum CodingKeys: String, CodingKey {
        case kind
        case stalledForNanoseconds = "stalledForNs"
        case beganAfterNanoseconds = "beganAfterNs"
        case workers
        case cycle
        case summary
        case partial
        case schedule
    }
}

extension StallReport {
    /// How long no worker had completed an operation.
    public var stalledFor: Duration { .nanoseconds(stalledForNanoseconds) }
    /// When the stall began, from the start of the trial (warm-up included);
    /// nil in records that did not keep it.
    public var beganAfter: Duration? { beganAfterNanoseconds.map { .nanoseconds($0) } }
}

/// One worker in a stall report.
public struct StalledWorker: Sendable, Codable, Equatable {
    /// The worker's number; for a participant that is not a worker (the main
    /// thread, a helper thread), its line on the trial's board, after the
    /// workers' (``participant`` names it).
    public var thread: Int
    /// What a participant that is not a worker is: "the main thread",
    /// "helper thread 1"; nil for a worker.
    public var participant: String?
    /// The operation and step it was in, if any.
    public var operation: String?
    /// The step it was in, if any.
    public var step: String?
    /// Its phase (`acquiring`, `inside`, `acquiringInner`, `running`, ...).
    public var phase: String
    /// Where it is, in words: "waiting to acquire the lock of resource 1 (write)".
    public var description: String
    /// The resource it waits for or is inside, and the inner one of a nested access.
    public var resource: Int?
    /// The inner resource of a nested access it waits for or is inside; nil otherwise.
    public var innerResource: Int?
    /// Operations it had completed (warm-up included).
    public var completedOps: Int
    /// What the kernel said of its thread, for a worker in the code under
    /// test that had not run during the stall: blocked in the kernel in code
    /// the harness does not see (Linux only).
    package var kernelWait: KernelWaitState?

    /// What reports call it: "worker 2", or ``participant`` ("the main thread").
    public var name: String { participant ?? "worker \(thread)" }
}
