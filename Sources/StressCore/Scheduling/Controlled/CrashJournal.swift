#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Synchronization

/// What a controlled trial's process leaves behind when it dies: the
/// decisions of the run that was going on (run-length encoded, as
/// ``ScheduleEncoding`` writes them), how that run was bounded, and for an
/// exploration how many schedules had passed before it.
///
/// It lives in a small file the parent makes and the trial process maps
/// shared (``ChildProcess`` hands it over as a descriptor), so it needs no
/// signal handler and no last words: whatever killed the process (a trap,
/// a fault, SIGKILL), every decision written before is in the file when
/// the parent reads it. Noting a decision is a few stores into
/// memory mapped at the start, under the scheduler's state lock the
/// deciding worker already holds: nothing is allocated, no call is made.
package final class CrashJournal: @unchecked Sendable {
    // @unchecked: the mapping is written only by the worker that holds the
    // run token, under the controlled scheduler's state lock (one worker at
    // a time), and read by the parent only after the process has ended.

    /// The environment variable that names the journal's descriptor in the
    /// trial process.
    package static let descriptorVariable = "STRESSBENCH_JOURNAL_FD"
    /// The descriptor the parent hands the journal over as.
    package static let childDescriptor: Int32 = 4
    /// The most runs of one worker kept; a run with more switches keeps
    /// its count of decisions but no replayable text.
    static let runCapacity = 1 << 17

    /// The header's words, then the runs as (worker, count) pairs of 32-bit words.
    private enum Word: Int {
        case magic, decisions, runs, lastWorker, opsPerThread, busyWorkers, exploring, bound, passed, pruned, truncated
        static let count = 16
    }
    private static let magic: Int64 = 0x5342_4A52_4E4C_0001
    /// The journal's size in bytes.
    package static let byteCount = Word.count * 8 + runCapacity * 8

    private let header: UnsafeMutablePointer<Int64>
    private let runs: UnsafeMutablePointer<Int32>

    /// Maps the journal at descriptor `fd` (nil when it cannot be mapped:
    /// the trial then runs without one).
    package init?(descriptor fd: Int32) {
        guard let base = mmap(nil, Self.byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), base != MAP_FAILED else { return nil }
        header = base.bindMemory(to: Int64.self, capacity: Word.count)
        runs = (base + Word.count * 8).bindMemory(to: Int32.self, capacity: Self.runCapacity * 2)
    }

    deinit { munmap(UnsafeMutableRawPointer(header), Self.byteCount) }

    /// A new, empty journal file's descriptor (close-on-exec), for the
    /// parent to hand to a trial process; nil when none can be made.
    package static func makeFile() -> Int32? {
        let fd = stress_anonymous_file(byteCount)
        return fd >= 0 ? fd : nil
    }

    private subscript(_ word: Word) -> Int64 {
        get { header[word.rawValue] }
        set { header[word.rawValue] = newValue }
    }

    // MARK: - The trial process

    private static let installed = Mutex<CrashJournal?>(nil)

    /// The journal of this trial process, if its parent gave it one.
    package static var current: CrashJournal? { installed.withLockSeen { $0 } }

    /// Makes `journal` this process's (the trial process does, before its trial runs).
    package static func install(_ journal: CrashJournal?) { installed.withLockSeen { $0 = journal } }

    /// A controlled run begins from a fresh start: its decisions replace
    /// the last run's. `opsPerThread` and `busyWorkers` bound it (nil: the
    /// trial's own window, every worker), as a replay must too. The busy
    /// workers are kept as a bit mask: a set with a worker past 62 (a trial
    /// of more than 63 workers) is not kept, and its replay busies all.
    func beginRun(opsPerThread: Int?, busyWorkers: BusyWorkers?) {
        self[.decisions] = 0
        self[.runs] = 0
        self[.truncated] = 0
        self[.opsPerThread] = Int64(opsPerThread ?? -1)
        var mask: Int64 = -1
        if let busy = busyWorkers?.workers, busy.allSatisfy({ $0 < 63 }) {
            mask = busy.reduce(0) { $0 | (1 << Int64($1)) }
        }
        self[.busyWorkers] = mask
        self[.magic] = Self.magic
    }

    /// Notes a decision, from the scheduler's log just after it logged it:
    /// the log's open run (`run`, of `worker`, `length` decisions long so
    /// far) and its count of decisions. Under the scheduler's state lock.
    ///
    /// The journal's runs are the log's (both begin with the trial's
    /// scheduler), so a decision only writes, never reads, the mapping:
    /// read back, its words were on lines the other CPU of the last
    /// hand-off had just written, and each read waited for one to come over.
    @inline(__always)
    func note(run: Int, worker: Int, length: Int, decisions: Int) {
        if run < Self.runCapacity {
            runs[2 * run] = Int32(truncatingIfNeeded: worker)
            runs[2 * run + 1] = Int32(truncatingIfNeeded: length)
            self[.runs] = Int64(run + 1)
        } else {
            self[.truncated] = 1
        }
        self[.lastWorker] = Int64(worker)
        self[.decisions] = Int64(decisions)
    }

    /// Where the next decision's note writes (for the scheduler's
    /// prefetching): the header's first line, and the open run's entry
    /// (`run` the log's open run now) with the next one's after it (past
    /// the last run, nowhere: the note only marks the journal truncated).
    func nextWrites(run: Int) -> (header: UnsafeRawPointer, run: UnsafeRawPointer?) {
        (UnsafeRawPointer(header), run < Self.runCapacity ? UnsafeRawPointer(runs + 2 * run) : nil)
    }

    /// An exploration with at most `bound` preemptions is about to run
    /// another schedule, after `passed` passed (`pruned` skipped as equivalent).
    func noteSchedule(bound: Int, passed: Int, pruned: Int) {
        self[.bound] = Int64(bound)
        self[.passed] = Int64(passed)
        self[.pruned] = Int64(pruned)
        self[.exploring] = 1
    }

    // MARK: - The parent

    /// What the journal holds after the process ended.
    package struct Contents: Sendable {
        /// Decisions the run that was going on had made.
        package var decisions: Int
        /// Those decisions as `replay --schedule` takes them; nil when there
        /// were too many switches to keep.
        package var encoded: String?
        /// The worker chosen last: the one running when the process died.
        package var lastWorker: Int?
        /// The run's operations per worker (a scenario's rounds) and busy
        /// workers, when not the trial's own.
        package var opsPerThread: Int?
        package var busyWorkers: BusyWorkers?
        /// For an exploration: its bound, the schedules that passed before
        /// the one that was running, and those skipped as equivalent.
        package var exploration: (bound: Int, passed: Int, pruned: Int)?
    }

    /// What the journal holds; nil when no controlled run began.
    package func contents() -> Contents? {
        guard self[.magic] == Self.magic else { return nil }
        let n = Int(Swift.min(Swift.max(self[.runs], 0), Int64(Self.runCapacity)))
        var pairs: [(worker: Int, count: Int)] = []
        pairs.reserveCapacity(n)
        for i in 0..<n { pairs.append((Int(runs[2 * i]), Int(runs[2 * i + 1]))) }
        return Contents(
            decisions: Int(self[.decisions]),
            encoded: self[.truncated] != 0 ? nil : ScheduleEncoding.encode(pairs),
            lastWorker: self[.decisions] > 0 ? Int(self[.lastWorker]) : nil,
            opsPerThread: self[.opsPerThread] >= 0 ? Int(self[.opsPerThread]) : nil,
            busyWorkers: self[.busyWorkers] >= 0 ? BusyWorkers((0..<63).filter { self[.busyWorkers] & (1 << Int64($0)) != 0 }) : nil,
            exploration: self[.exploring] != 0 ? (Int(self[.bound]), Int(self[.passed]), Int(self[.pruned])) : nil)
    }
}
