/// A controlled trial's decisions, kept as runs of the same worker (most
/// points do not switch), in memory reserved up front so that logging a
/// decision never allocates.
struct DecisionLog {
    private var runs: [(worker: Int, count: Int)] = []
    /// Decisions logged.
    private(set) var count = 0

    init(capacity: Int) { runs.reserveCapacity(Swift.min(capacity, 1 << 20)) }

    mutating func append(_ worker: Int) {
        count &+= 1
        if let last = runs.indices.last, runs[last].worker == worker {
            runs[last].count &+= 1
        } else {
            runs.append((worker, 1))
        }
    }

    /// The text form (``ScheduleEncoding``).
    var encoded: String { ScheduleEncoding.encode(runs) }
}
