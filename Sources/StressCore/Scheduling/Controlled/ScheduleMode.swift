/// Who decides which worker runs next: the plan's `schedule` key and
/// `--schedule`.
public enum ScheduleMode: String, Sendable, Codable, CaseIterable {
    /// The operating system schedules the workers' threads, in parallel; the
    /// fuzzing policy only perturbs them. The default: it measures real
    /// speed and shows memory-model effects.
    case free
    /// The harness runs one worker at a time and the seed's policy picks
    /// every switch, at every scheduling point (fuzz points, harness-aware
    /// primitives, the strategy's sections). A failure replays exactly.
    case controlled
}
