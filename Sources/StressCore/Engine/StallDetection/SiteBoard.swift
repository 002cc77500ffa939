#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// The words every worker publishes: its current site, how many operations it
/// has completed, and which OS thread it is. One cache line per worker, written
/// only by that worker (relaxed stores: no lock, no contention) and read by the
/// watchdog and the crash handler.
package final class SiteBoard: @unchecked Sendable {
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
    package init<State>(workers: Int, operations: [StressOperation<State>], extraLabels: [String] = [], roles: [String]? = nil) {
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
