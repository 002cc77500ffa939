/// A controlled trial's decisions, kept as runs of the same worker (most
/// points do not switch), in memory reserved up front so that logging a
/// decision never allocates.
struct DecisionLog {
    /// The finished runs; the current one is kept apart (``lastWorker``,
    /// ``lastCount``), so that a decision that continues it, the usual
    /// case, is two integer stores with no array access.
    private var runs: [(worker: Int, count: Int)] = []
    private var lastWorker = -1
    private var lastCount = 0
    /// Decisions logged.
    private(set) var count = 0

    init(capacity: Int) { runs.reserveCapacity(Swift.min(capacity, 1 << 20)) }

    mutating func append(_ worker: Int) {
        count &+= 1
        if worker == lastWorker && lastCount > 0 {
            lastCount &+= 1
        } else {
            if lastCount > 0 { runs.append((lastWorker, lastCount)) }
            lastWorker = worker
            lastCount = 1
        }
    }

    /// The text form (``ScheduleEncoding``).
    var encoded: String { ScheduleEncoding.encode(lastCount > 0 ? runs + [(lastWorker, lastCount)] : runs) }
}
