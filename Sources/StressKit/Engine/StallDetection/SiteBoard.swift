#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// What a worker is doing at a point in time, as it publishes it.
public enum WorkerPhase: UInt64, Sendable, CaseIterable {
    /// Not yet in its loop.
    case starting = 0
    /// Inside an operation, outside any critical section.
    case running = 1
    /// Waiting to enter a critical section (acquire a lock, enter a queue, reach an actor).
    case acquiring = 2
    /// Inside a critical section.
    case inside = 3
    /// Holding `resource`, waiting to enter `inner` (a nested access).
    case acquiringInner = 5
    /// Holding `resource` and inside `inner`.
    case insideInner = 6
    /// Between operations (loop bookkeeping).
    case betweenOperations = 7
    /// Waiting at a start barrier for the other workers.
    case atBarrier = 8
    /// Left its loop.
    case finished = 9
    /// Paced load: ahead of its schedule, waiting for its next intended start
    /// (idle by design, not stuck).
    case pacing = 10
    /// Held by the fuzzer (a sleep, a spin, a PCT wait): the harness's own
    /// pause, bounded, which the worker comes out of by itself.
    case fuzzing = 11
    /// A participant that is not a worker (the main thread, a helper thread)
    /// with nothing of the code under test to run: not part of any stall.
    case idle = 12
    /// Waiting for a primitive of the code under test that publishes what it
    /// waits for (a harness-aware lock, queue, semaphore or condition): the
    /// line's wait words say which.
    case blocked = 13
    /// In an `async` step (``StepAccess/awaiting``): suspended in an `await`
    /// of the code under test, or running one of the step's jobs; under the
    /// harness executor the watchdog asks it which (`JobScheduler.activity(of:)`).
    case awaiting = 14

    /// Whether a worker in this phase is blocked on another party, rather than running.
    var isWaiting: Bool {
        self == .acquiring || self == .acquiringInner || self == .atBarrier || self == .blocked || self == .awaiting
    }

    /// Whether the worker is in the harness's own code and will move on by
    /// itself (starting, between operations, waiting for its paced start, in a
    /// fuzz pause): a worker there is never part of a stall of the code under
    /// test; if it does not move, the OS has not run it.
    var isHarnessBusy: Bool { self == .starting || self == .betweenOperations || self == .pacing || self == .fuzzing }

    /// Whether the worker is in the code under test (running, waiting for or
    /// inside a critical section), where a stall is the code's.
    var isInCodeUnderTest: Bool { !isHarnessBusy && self != .atBarrier && self != .finished && self != .idle }

    /// Whether the participant takes no part in a stall at all (left its
    /// loop, or a main or helper thread with nothing to run).
    var isOut: Bool { self == .finished || self == .idle }

    /// Words for reports, for C's crash handler (indexed by raw value).
    static let descriptions: [String] = (0..<16).map { raw in
        switch WorkerPhase(rawValue: UInt64(raw)) {
        case .starting?: return "starting"
        case .running?: return "running outside any critical section"
        case .acquiring?: return "waiting to enter"
        case .inside?: return "inside the critical section of"
        case .acquiringInner?: return "holding and waiting to enter a nested section of"
        case .insideInner?: return "inside a nested critical section of"
        case .betweenOperations?: return "between operations"
        case .atBarrier?: return "at a start barrier"
        case .finished?: return "finished"
        case .pacing?: return "waiting for its next scheduled start"
        case .fuzzing?: return "paused by the fuzzer"
        case .idle?: return "idle"
        case .blocked?: return "blocked in a lock, condition or queue of the code under test"
        case .awaiting?: return "in an async step (suspended in an await of the code under test, or running one of its jobs)"
        default: return "unknown"
        }
    }
}

/// One published site: which operation and step, what phase, which resources.
///
/// Packed into one 64-bit word (bits 0-23 site id + 1, 24-27 phase, 28-39
/// resource, 40-51 inner resource, 52 write access) so that publishing is a
/// single relaxed store and a reader never sees half of it.
struct SiteWord: Equatable {
    var raw: UInt64

    init(raw: UInt64) { self.raw = raw }

    @inline(__always)
    init(site: Int, phase: WorkerPhase, resource: Int = 0, inner: Int = 0, write: Bool = false) {
        raw = UInt64(truncatingIfNeeded: site &+ 1) & 0xFF_FFFF
            | phase.rawValue << 24
            | (UInt64(truncatingIfNeeded: resource) & 0xFFF) << 28
            | (UInt64(truncatingIfNeeded: inner) & 0xFFF) << 40
            | (write ? 1 << 52 : 0)
    }

    var site: Int? { raw & 0xFF_FFFF == 0 ? nil : Int(raw & 0xFF_FFFF) - 1 }
    var phase: WorkerPhase { WorkerPhase(rawValue: (raw >> 24) & 0xF) ?? .starting }
    var resource: Int { Int((raw >> 28) & 0xFFF) }
    var inner: Int { Int((raw >> 40) & 0xFFF) }
    var isWrite: Bool { raw & (1 << 52) != 0 }
}

/// The words every worker publishes: its current site, how many operations it
/// has completed, and which OS thread it is. One cache line per worker, written
/// only by that worker (relaxed stores: no lock, no contention) and read by the
/// watchdog and the crash handler.
final class SiteBoard: @unchecked Sendable {
    // @unchecked: raw memory deliberately shared between each worker (the only
    // writer of its line) and the readers; every access is a relaxed atomic.
    static let strideWords = CacheLineArray<UInt64>.stride / MemoryLayout<UInt64>.stride

    /// The words of a participant's line (the same numbers as
    /// CStressParticipant.h's `STRESS_WORD_*`).
    enum Word {
        static let site = 0, completed = 1, threadID = 2, cpuClock = 3
        static let waitKey = 4, waitKind = 5, held = 6, heldSlots = 8, heldOverflow = 14, savedSite = 15
    }

    /// Lines for participants that are not workers: the main thread, then
    /// helper threads (dispatch threads running harness-aware queues' blocks).
    static let helperSlots = 8

    /// The workers (lines `0..<workers`).
    let workers: Int
    /// Every line: the workers, the main thread (``mainParticipant``), the helpers.
    let participants: Int
    /// The main thread's line.
    var mainParticipant: Int { workers }
    private let lines: CacheLineArray<UInt64>
    /// The next helper line to hand out.
    private let nextHelper = CacheLineArray<UInt64>(count: 1)
    /// When every worker had reached the start barrier (monotonic ns; 0
    /// before): the watchdog's stall clock starts there, not while the
    /// workers are still being created.
    private let armed = CacheLineArray<UInt64>(count: 1)
    /// "operation/step" for every site id.
    let labels: [String]
    /// In a scenario, worker `w`'s role (role `w` always runs on worker `w`),
    /// so a stall report can name a worker's role where its site names no
    /// step (at the round's barrier); nil for a workload.
    let roles: [String]?
    /// The harness executor of a trial whose workers are tasks on it: the
    /// watchdog asks it whether a worker in an `await` has a job running,
    /// queued or sleeping there. Nil otherwise.
    let executor = ExecutorView()
    /// The site id of step 0 of each operation.
    let siteBase: [Int]
    /// C copies of `labels` and of the phase names for the crash handler:
    /// arrays of C strings in memory of their own, which stay put until deinit
    /// (a Swift array's buffer is only guaranteed inside withUnsafeBufferPointer).
    private var cLabels: UnsafeMutablePointer<UnsafePointer<CChar>?>?
    private var cPhases: UnsafeMutablePointer<UnsafePointer<CChar>?>?

    /// A board for `workers` running `operations`; `extraLabels` name sites
    /// after the operations' steps that are not steps (a scenario's arbiter);
    /// `roles`, a scenario's role names, worker by worker.
    init<State>(workers: Int, operations: [StressOperation<State>], extraLabels: [String] = [], roles: [String]? = nil) {
        self.workers = workers
        self.roles = roles
        participants = workers + 1 + Self.helperSlots
        lines = CacheLineArray(count: participants)
        for p in workers..<participants { stress_store_relaxed(lines[p], SiteWord(site: -1, phase: .idle).raw) }
        var labels: [String] = [], bases: [Int] = []
        for op in operations {
            bases.append(labels.count)
            labels += op.steps.map { "\(op.name)/\($0.name)" }
        }
        self.labels = labels + extraLabels
        siteBase = bases
    }

    deinit {
        stress_crash_reporter_clear()
        Self.freeCStrings(cLabels, count: labels.count)
        Self.freeCStrings(cPhases, count: WorkerPhase.descriptions.count)
        lines.deallocate()
        armed.deallocate()
        nextHelper.deallocate()
    }

    /// A helper line for a thread that is not a worker, or nil when every
    /// one is taken (that thread then publishes nothing). A bit per line in
    /// one word, claimed with a compare-and-swap.
    func claimHelper() -> Int? {
        while true {
            let used = stress_load_relaxed(nextHelper[0])
            guard let free = (0..<Self.helperSlots).first(where: { used & (1 << UInt64($0)) == 0 }) else { return nil }
            if stress_compare_exchange(nextHelper[0], used, used | (1 << UInt64(free))) != 0 { return workers + 1 + free }
        }
    }

    /// Gives back a line from ``claimHelper()``.
    func releaseHelper(_ line: Int) {
        let bit: UInt64 = 1 << UInt64(line - workers - 1)
        while true {
            let used = stress_load_relaxed(nextHelper[0])
            if stress_compare_exchange(nextHelper[0], used, used & ~bit) != 0 { return }
        }
    }

    /// The participant whose line is at `line`, if it is one of this board's.
    func participant(at line: UnsafeMutablePointer<UInt64>) -> Int? {
        let offset = UnsafeRawPointer(line) - UnsafeRawPointer(lines[0])
        let stride = Self.strideWords * MemoryLayout<UInt64>.stride
        guard offset >= 0, offset % stride == 0, offset / stride < participants else { return nil }
        return offset / stride
    }

    /// Publishes `word` as participant `p`'s site (its own thread only).
    func publishSite(_ p: Int, _ word: SiteWord) { stress_store_relaxed(lines[p] + Word.site, word.raw) }

    /// Participant `p`'s line, for the calling thread to publish on
    /// (``stress_participant_set``).
    func line(_ p: Int) -> UnsafeMutablePointer<UInt64> { lines[p] }

    /// Everything participant `p` has published.
    func state(_ p: Int) -> ParticipantState {
        let (site, completed) = read(p)
        let (key, kind, held) = keyed(p)
        return ParticipantState(site: site, savedSite: SiteWord(raw: stress_load_relaxed(lines[p] + Word.savedSite)),
                                completed: completed, waitKey: key, waitKind: kind, held: held)
    }

    /// What participant `p` waits for and holds, by key (see CStressParticipant.h).
    func keyed(_ p: Int) -> (waitKey: UInt64, waitKind: UInt64, held: [UInt64]) {
        let line = lines[p]
        let held = (0..<Word.heldSlots).map { stress_load_relaxed(line + Word.held + $0) }.filter { $0 != 0 }
        return (stress_load_relaxed(line + Word.waitKey), stress_load_relaxed(line + Word.waitKind), held)
    }

    /// Called by the coordinator once every worker has reached the start
    /// barrier: from now on a worker that does not progress may be stalled.
    func arm() { stress_store_relaxed(armed[0], MonotonicClock.now()) }

    /// When the board was armed (monotonic ns), or nil before.
    var armedAt: UInt64? {
        let t = stress_load_relaxed(armed[0])
        return t == 0 ? nil : t
    }

    /// Worker `w`'s OS thread: its kernel id and its CPU-time clock (0 when
    /// unknown, as for a task worker, which has no thread of its own).
    func thread(_ w: Int) -> (id: UInt64, cpuClock: UInt64) {
        (stress_load_relaxed(lines[w] + Word.threadID), stress_load_relaxed(lines[w] + Word.cpuClock))
    }

    /// The CPU time the workers' threads have used so far, summed; nil when
    /// a worker has no thread of its own (a task) or a clock cannot be read.
    func workerCpuNs() -> UInt64? {
        var sum: UInt64 = 0
        for w in 0..<workers {
            let ns = stress_cpu_clock_ns(thread(w).cpuClock)
            guard ns != .max else { return nil }
            sum &+= ns
        }
        return sum
    }

    /// The site word of worker `w`.
    func siteSlot(_ w: Int) -> UnsafeMutablePointer<UInt64> { lines[w] }

    /// A snapshot of worker `w`: its site and completed operations.
    func read(_ w: Int) -> (site: SiteWord, completed: UInt64) {
        (SiteWord(raw: stress_load_relaxed(lines[w] + Word.site)), stress_load_relaxed(lines[w] + Word.completed))
    }

    /// Lets the crash handler describe every worker if the process dies by a signal.
    func installCrashReporter() {
        guard cLabels == nil else { return }
        let labelArray = Self.cStrings(labels), phaseArray = Self.cStrings(WorkerPhase.descriptions)
        cLabels = labelArray
        cPhases = phaseArray
        stress_crash_reporter_install(lines[0], Int32(workers), Int32(Self.strideWords),
                                      labelArray, Int32(labels.count), phaseArray)
    }

    /// A C array of C strings (`strdup` copies), owned by the caller.
    private static func cStrings(_ strings: [String]) -> UnsafeMutablePointer<UnsafePointer<CChar>?> {
        let array = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: Swift.max(1, strings.count))
        for (i, s) in strings.enumerated() { (array + i).initialize(to: UnsafePointer(strdup(s))) }
        return array
    }

    private static func freeCStrings(_ array: UnsafeMutablePointer<UnsafePointer<CChar>?>?, count: Int) {
        guard let array else { return }
        for i in 0..<count { free(UnsafeMutableRawPointer(mutating: array[i])) }
        array.deallocate()
    }
}

/// A worker's handle on its own line of the board.
struct SiteProbe: @unchecked Sendable {
    // @unchecked: a pointer into the SiteBoard's raw memory, written only by the
    // worker that owns this probe (see SiteBoard).
    let slot: UnsafeMutablePointer<UInt64>

    /// Publishes a site (one relaxed store).
    @inline(__always)
    func publish(_ word: SiteWord) { stress_store_relaxed(slot, word.raw) }

    /// Publishes the number of completed operations (one relaxed store).
    @inline(__always)
    func completed(_ count: Int) { stress_store_relaxed(slot + SiteBoard.Word.completed, UInt64(truncatingIfNeeded: count)) }

    /// The site this worker published last (only its owner calls this).
    @inline(__always)
    func current() -> SiteWord { SiteWord(raw: stress_load_relaxed(slot)) }

    /// Publishes the calling OS thread as this worker's, so the watchdog can
    /// tell a thread that is stuck from one the OS has not run.
    func identifyThread() {
        stress_store_relaxed(slot + SiteBoard.Word.threadID, stress_thread_id())
        stress_store_relaxed(slot + SiteBoard.Word.cpuClock, stress_thread_cpu_clock())
    }

    /// Says that a task worker has no thread of its own.
    func clearThread() {
        stress_store_relaxed(slot + SiteBoard.Word.threadID, 0)
        stress_store_relaxed(slot + SiteBoard.Word.cpuClock, 0)
    }

    /// A probe for frames made outside a trial: it writes (atomically) to one
    /// scratch line nobody reads.
    static let detached: SiteProbe = {
        let p = UnsafeMutablePointer<UInt64>.allocate(capacity: SiteBoard.strideWords)
        p.initialize(repeating: 0, count: SiteBoard.strideWords)
        return SiteProbe(slot: p)
    }()
}
