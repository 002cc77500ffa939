/// A controlled trial's decisions, kept as runs of the same worker (most
/// points do not switch), in memory reserved up front so that logging a
/// decision never allocates.
///
/// The runs live in memory of the log's own (not an array): appending to
/// an array writes its count into the array's header, one more cache line
/// that the two CPUs of a hand-off would pass back and forth at every
/// decision that switches (under `--fuzz off`, nearly all). The log is
/// copied only as a whole part of the scheduler's decision line (see
/// ``DecisionLine``), which frees the memory (``deallocate()``) once.
struct DecisionLog {
    /// The finished runs, `runCount` of `runCapacity`; the current one is
    /// kept apart (``lastWorker``, ``lastCount``), so that a decision that
    /// continues it, the usual case, is two integer stores with no memory
    /// elsewhere touched.
    private var runs: UnsafeMutablePointer<(worker: Int, count: Int)>
    private var runCount = 0
    private var runCapacity: Int
    private var lastWorker = -1
    private var lastCount = 0
    /// Decisions logged.
    private(set) var count = 0

    init(capacity: Int) {
        runCapacity = Swift.max(16, Swift.min(capacity, 1 << 20))
        runs = .allocate(capacity: runCapacity)
    }

    /// Frees the runs' memory; the log is not used after.
    func deallocate() { runs.deallocate() }

    mutating func append(_ worker: Int) {
        count &+= 1
        if worker == lastWorker && lastCount > 0 {
            lastCount &+= 1
        } else {
            if lastCount > 0 { appendRun(lastWorker, lastCount) }
            lastWorker = worker
            lastCount = 1
        }
    }

    private mutating func appendRun(_ worker: Int, _ count: Int) {
        if runCount == runCapacity {
            // Past the reserved runs (a trial of over a million switches):
            // twice the room, as an array would grow.
            let larger = UnsafeMutablePointer<(worker: Int, count: Int)>.allocate(capacity: runCapacity * 2)
            larger.initialize(from: runs, count: runCount)
            runs.deallocate()
            runs = larger
            runCapacity *= 2
        }
        (runs + runCount).initialize(to: (worker, count))
        runCount &+= 1
    }

    /// The current run: its index among the runs, its worker and its length
    /// so far (what the crash journal mirrors; -1 for the worker before the
    /// first decision).
    var openRun: (index: Int, worker: Int, length: Int) { (runCount, lastWorker, lastCount) }

    /// Where the next finished run will be written (for
    /// ``DecisionLine/prefetchHinted()``): past the reserved room, nowhere
    /// yet.
    var nextWrite: UnsafeRawPointer? { runCount < runCapacity ? UnsafeRawPointer(runs + runCount) : nil }

    /// The runs so far, the current one last.
    var allRuns: [(worker: Int, count: Int)] {
        var list = Array(UnsafeBufferPointer(start: runs, count: runCount))
        if lastCount > 0 { list.append((lastWorker, lastCount)) }
        return list
    }

    /// The text form (``ScheduleEncoding``).
    var encoded: String { ScheduleEncoding.encode(allRuns) }
}
