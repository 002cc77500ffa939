import Synchronization

/// What every decision of a controlled trial writes, together in memory of
/// its own that starts on a cache line (``ControlledScheduler`` reaches
/// each part through the pointers here).
///
/// Under `--fuzz off` nearly every decision hands the token to the worker
/// on the other CPU, which makes the next decision: every cache line a
/// decision writes then moves from one CPU's cache to the other's at every
/// decision, at about the cost of a hand-off each. Spread over the
/// scheduler's object (among fields that only change at other times) and
/// the arrays' headers, a decision wrote about ten lines; here the words it
/// writes (the state lock, the token, the decision count the escape monitor
/// watches, the counters of points, the decision log's and the trace's
/// current places, when each worker last ran) take three or four adjacent
/// lines, with nothing else on them, so that what the decisions only read
/// stays in both CPUs' caches. Each worker's baton has a line of its own
/// elsewhere; the log's runs and the trace's events are in memory of their
/// own (see ``DecisionLog`` and ``TraceRing``).
///
/// The layout: the state lock, the token and the decision mark (one word
/// each), then ``Counters`` (its log and trace included), then the last
/// decision at which each worker ran, one word a worker.
struct DecisionLine {
    /// The plain words a decision writes, under the state lock.
    struct Counters {
        /// Points passed by the holder since it got the token, and since
        /// any worker last ended an operation (see
        /// ``ControlledScheduler/spinLimit``).
        var sinceSwitch = 0
        var sinceOperationEnd = 0
        /// Where the current decision is made (for exploration's footprints).
        var decidingAt: UInt8
        var log: DecisionLog
        var trace: TraceRing
    }

    let stateLock: UnsafeMutablePointer<Atomic<Bool>>
    let token: UnsafeMutablePointer<Atomic<Int>>
    let decisionMark: UnsafeMutablePointer<Atomic<Int>>
    let counters: UnsafeMutablePointer<Counters>
    let lastRan: UnsafeMutablePointer<Int>
    private let base: UnsafeMutableRawPointer
    private let workers: Int

    private static let word = MemoryLayout<Int>.stride
    private static let countersOffset = 3 * word
    private static var lastRanOffset: Int {
        (countersOffset + MemoryLayout<Counters>.stride + word - 1) / word * word
    }

    /// The line for `workers` workers, with the counters' starting values.
    init(workers: Int, counters: Counters) {
        self.workers = workers
        base = .allocate(byteCount: Self.lastRanOffset + workers * Self.word, alignment: 64)
        stateLock = base.bindMemory(to: Atomic<Bool>.self, capacity: 1)
        stateLock.initialize(to: Atomic(false))
        token = (base + Self.word).bindMemory(to: Atomic<Int>.self, capacity: 1)
        token.initialize(to: Atomic(-1))
        decisionMark = (base + 2 * Self.word).bindMemory(to: Atomic<Int>.self, capacity: 1)
        decisionMark.initialize(to: Atomic(0))
        self.counters = (base + Self.countersOffset).bindMemory(to: Counters.self, capacity: 1)
        self.counters.initialize(to: counters)
        lastRan = (base + Self.lastRanOffset).bindMemory(to: Int.self, capacity: workers)
        lastRan.initialize(repeating: -1, count: workers)
    }

    /// Frees the line, with the log's and the trace's memory.
    func deallocate() {
        counters.pointee.log.deallocate()
        counters.pointee.trace.deallocate()
        counters.deinitialize(count: 1)
        stateLock.deinitialize(count: 1)
        token.deinitialize(count: 1)
        decisionMark.deinitialize(count: 1)
        base.deallocate()
    }
}
