import CStressSupport
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
/// current places, when each worker last ran) take four or five adjacent
/// lines, with nothing else on them, so that what the decisions only read
/// stays in both CPUs' caches. Each worker's baton has a line of its own
/// elsewhere; the log's runs and the trace's events are in memory of their
/// own (see ``DecisionLog`` and ``TraceRing``).
///
/// The layout: the state lock, the token and the decision mark (one word
/// each) and the ``Hint``s, on the first line; then ``Counters`` (its log
/// and trace included) from the second line on; then the last decision at
/// which each worker ran, one word a worker.
///
/// Even on lines of their own, the words come over one line after another
/// as the new holder touches them, each a wait for the other CPU: the
/// token, then the state lock, then the counters, the log, the trace, the
/// crash journal. So the worker that is handed the token asks for them all
/// at once, as soon as its baton turns (``prefetchLines()``, then, once the
/// token's line is here, ``prefetchHinted()`` for the memory elsewhere that
/// the hints name): they come over together, while it returns to the code
/// under test.
struct DecisionLine {
    /// Memory outside the line that the next decision writes, noted by the
    /// decider before it hands the token on: the next two trace events
    /// (at the ring's last slot, the second is past its end: a hint that
    /// fetches nothing useful, and never faults), the log's next run, the
    /// crash journal's header and its open run.
    enum Hint: Int, CaseIterable {
        case trace, log, journalHeader, journalRun

        /// How many bytes from the hinted address the next decision may
        /// write: two trace events, one run of the log, the journal
        /// header's first line, the journal's open run and the next.
        var bytes: Int {
            switch self {
            case .trace: 2 * MemoryLayout<TraceRing.Entry>.stride
            case .log: MemoryLayout<(worker: Int, count: Int)>.stride
            case .journalHeader: 64
            case .journalRun: 16
            }
        }
    }

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
    /// Each hint's address (0: none). Atomic, but relaxed: a prefetch is a
    /// hint, and a stale address only fetches a line for nothing (a
    /// prefetch never faults, even past the end of an allocation).
    private let hints: UnsafeMutablePointer<Atomic<Int>>
    private let base: UnsafeMutableRawPointer
    private let workers: Int
    private let byteCount: Int

    private static let word = MemoryLayout<Int>.stride
    private static let lineSize = 64
    private static let hintsOffset = 3 * word
    private static let countersOffset = lineSize
    private static var lastRanOffset: Int {
        (countersOffset + MemoryLayout<Counters>.stride + word - 1) / word * word
    }

    /// The line for `workers` workers, with the counters' starting values.
    init(workers: Int, counters: Counters) {
        self.workers = workers
        precondition(Self.hintsOffset + Hint.allCases.count * Self.word <= Self.countersOffset, "the hints fit on the first line")
        byteCount = Self.lastRanOffset + workers * Self.word
        base = .allocate(byteCount: byteCount, alignment: Self.lineSize)
        stateLock = base.bindMemory(to: Atomic<Bool>.self, capacity: 1)
        stateLock.initialize(to: Atomic(false))
        token = (base + Self.word).bindMemory(to: Atomic<Int>.self, capacity: 1)
        token.initialize(to: Atomic(-1))
        decisionMark = (base + 2 * Self.word).bindMemory(to: Atomic<Int>.self, capacity: 1)
        decisionMark.initialize(to: Atomic(0))
        hints = (base + Self.hintsOffset).bindMemory(to: Atomic<Int>.self, capacity: Hint.allCases.count)
        for i in 0..<Hint.allCases.count { (hints + i).initialize(to: Atomic(0)) }
        self.counters = (base + Self.countersOffset).bindMemory(to: Counters.self, capacity: 1)
        self.counters.initialize(to: counters)
        lastRan = (base + Self.lastRanOffset).bindMemory(to: Int.self, capacity: workers)
        lastRan.initialize(repeating: -1, count: workers)
    }

    /// Notes where the next decision writes outside the line (nil: nowhere
    /// this hint names). By the decider, under the state lock.
    @inline(__always)
    func hint(_ hint: Hint, _ address: UnsafeRawPointer?) {
        hints[hint.rawValue].store(Int(bitPattern: address), ordering: .relaxed)
    }

    /// Asks for every line of the line's memory, to write: by a worker
    /// whose baton just turned, before it looks at the token.
    @inline(__always)
    func prefetchLines() {
        var offset = 0
        while offset < byteCount {
            stress_prefetch_write(base + offset)
            offset &+= Self.lineSize
        }
    }

    /// Asks for the lines the hints name, to write: by the worker that now
    /// holds the token (the first line, with the hints, is here: the
    /// token was read from it).
    @inline(__always)
    func prefetchHinted() {
        for hint in Hint.allCases {
            guard let start = UnsafeRawPointer(bitPattern: hints[hint.rawValue].load(ordering: .relaxed)) else { continue }
            let bytes = hint.bytes
            var offset = 0
            while offset < bytes {
                stress_prefetch_write(start + offset)
                offset &+= Self.lineSize
            }
            stress_prefetch_write(start + (bytes - 1))
        }
    }

    /// Frees the line, with the log's and the trace's memory.
    func deallocate() {
        counters.pointee.log.deallocate()
        counters.pointee.trace.deallocate()
        counters.deinitialize(count: 1)
        stateLock.deinitialize(count: 1)
        token.deinitialize(count: 1)
        decisionMark.deinitialize(count: 1)
        hints.deinitialize(count: Hint.allCases.count)
        base.deallocate()
    }
}
