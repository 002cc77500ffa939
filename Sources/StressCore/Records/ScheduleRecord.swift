/// How a trial's workers were scheduled: the record's `schedule` object.
///
/// A free-running trial says only `mode: free`: the operating system chose
/// every switch, and nothing can replay them. A controlled trial also says how
/// many decisions the harness made, and the decisions themselves, encoded so
/// that `stressbench replay --schedule` follows them exactly.
public struct ScheduleRecord: Sendable, Codable, Equatable {
    /// Who chose which worker ran next.
    public var mode: ScheduleMode
    /// A controlled trial: how many times the harness chose the next worker
    /// (one decision per scheduling point passed, blocked or not). Nil for a
    /// free-running trial.
    public var decisions: Int?
    /// A controlled trial: every decision, run-length encoded as
    /// `w<worker>:<decisions in a row>` separated by commas
    /// (`w0:2,w1:3,w0:1`), the string `replay --schedule` takes. Nil for a
    /// free-running trial.
    public var encoded: String?
    /// A controlled trial: `full` when every worker stayed under the
    /// harness's control, `partial` when one blocked or spun where the
    /// harness could not see (see ``escapes``). Nil for a free-running trial.
    public var controlled: Coverage?
    /// A `partial` trial: what escaped the scheduler, one line each
    /// ("worker 1 blocked for 12 ms outside any scheduling point, in
    /// step transfer/debit"). Nil otherwise.
    public var escapes: [String]?

    /// The record of a free-running trial.
    public static let free = ScheduleRecord(mode: .free)

    /// A record.
    ///
    /// - Parameters:
    ///   - mode: Free-running or controlled.
    ///   - decisions: How many decisions a controlled trial made.
    ///   - encoded: The decisions, run-length encoded.
    ///   - controlled: Whether the control was full or partial.
    ///   - escapes: What escaped the scheduler, for a partial one.
    public init(mode: ScheduleMode, decisions: Int? = nil, encoded: String? = nil, controlled: Coverage? = nil,
                escapes: [String]? = nil) {
        self.mode = mode
        self.decisions = decisions
        self.encoded = encoded
        self.controlled = controlled
        self.escapes = escapes
    }
}

extension ScheduleRecord {
    /// Whether every worker of a controlled trial stayed under the harness's control.
    public enum Coverage: String, Sendable, Codable {
        /// Every switch was the harness's decision: the schedule replays exactly.
        case full
        /// Some code blocked or spun where the harness could not see (an
        /// uninterposed lock, a raw system call, a plain `DispatchQueue`); the
        /// operating system decided there, so a replay may differ.
        case partial
    }
}
