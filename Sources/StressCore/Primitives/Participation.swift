import CStressSupport
import Synchronization

/// How a harness-aware primitive takes part in a trial: its key, its fuzz
/// points, and the helper lines of threads that are not workers. Outside a
/// trial every function here is a thread-local load and a branch.
enum Participation {
    /// Whether the calling thread takes part in a trial (a worker, the main
    /// thread, or a helper running a harness-aware block).
    @inline(__always)
    static var active: Bool { stress_participant() != nil }

    /// The key of a primitive that is an object: its address.
    @inline(__always)
    static func key(_ object: AnyObject) -> UInt64 { UInt64(UInt(bitPattern: ObjectIdentifier(object))) }

    /// A fuzz point of the calling worker's own fuzzer (nothing on a thread
    /// that is not a worker's).
    @inline(__always)
    static func fuzz(_ point: FuzzPoint) {
        if let raw = stress_ambient() {
            AmbientContext.at(raw).pointee.fuzz(point)
        } else if stress_trial_is_running() != 0 {
            fuzzOnMainThread(point)
        }
    }

    /// A fuzz point on a thread that is not a worker's: a scheduling point of
    /// the main thread while it runs a block under control; nothing elsewhere.
    @inline(never)
    static func fuzzOnMainThread(_ point: FuzzPoint) {
        guard let main = MainThreadControl.here else { return }
        main.scheduler.point(main.worker, at: point)
    }

    /// As a harness-aware block starts on the calling thread: a thread that
    /// is not a worker gets a line of the running trial's board (a dispatch
    /// thread borrows a helper line; the main thread has its own) and shows
    /// as running, so the watchdog sees what the block holds and waits for.
    /// A worker's line is the engine's to publish and is left alone. Returns
    /// what ``leave(_:)`` undoes.
    static func enter() -> BlockEntry {
        guard stress_trial_is_running() != 0, let board = RunningTrial.board else { return BlockEntry() }
        if let line = stress_participant() {
            guard let p = board.participant(at: line), p >= board.workers else { return BlockEntry() }
            board.publishSite(p, SiteWord(site: -1, phase: .running))
            return BlockEntry(participant: p, lent: false)
        }
        guard let p = board.claimHelper() else { return BlockEntry() }
        stress_participant_attach(board.line(p))
        board.publishSite(p, SiteWord(site: -1, phase: .running))
        return BlockEntry(participant: p, lent: true)
    }

    /// As the block ends: the thread shows as idle again, and a lent line goes back.
    static func leave(_ entry: BlockEntry) {
        guard let p = entry.participant, let board = RunningTrial.board else { return }
        board.publishSite(p, SiteWord(site: -1, phase: .idle))
        if entry.lent {
            stress_participant_attach(nil)
            board.releaseHelper(p)
        }
    }

    /// Hands the preloaded interposer (libStressInterpose.so, `interpose:
    /// true`) the fuzz point its pthread calls use; nothing without it.
    static func connectInterposer() {
        _ = stress_interpose_connect { point in Participation.fuzz(FuzzPoint(rawValue: UInt64(point)) ?? .user) }
        _ = stress_interpose_connect_model { op, key, a, b in Participation.interposedModel(op, key, a, b) }
    }

    /// What an interposed pthread call asks a controlled trial's model (op
    /// numbers from CStressInterpose.h): -1 when the calling thread is not
    /// under control, so the call goes on as free-running.
    static func interposedModel(_ op: Int32, _ key: UInt64, _ a: UInt64, _ b: UInt64) -> Int32 {
        guard let controlled else { return -1 }
        switch op {
        case 1: return controlled.acquire(key, shared: a != 0, reentrant: b != 0) ? 1 : -1
        case 2: return controlled.tryAcquire(key, reentrant: a != 0) ? 1 : 0
        case 3:
            controlled.release(key)
            return 1
        case 4: return controlled.wait(on: key, releasing: a, timed: b != 0).map { $0 ? 1 : 0 } ?? 1
        case 5, 6:
            controlled.signal(key, all: op == 6)
            return 1
        case 7: return 1
        default: return -1
        }
    }

    /// The calling worker's place under controlled scheduling, while control
    /// lasts (the main thread's while it runs a main-queue block under
    /// control): nil on another thread that is not a worker's, in a
    /// free-running trial, and once control has ended.
    @inline(__always)
    static var controlled: ControlledWorker? {
        // The main thread has no worker context: it takes part while it runs
        // a main-queue block under control.
        guard let raw = stress_ambient() else { return stress_trial_is_running() != 0 ? MainThreadControl.here : nil }
        let context = AmbientContext.at(raw)
        guard let scheduler = context.pointee.scheduling, !scheduler.isReleased else { return nil }
        return ControlledWorker(scheduler: scheduler, worker: context.pointee.thread)
    }

    /// Under controlled scheduling, notes where the calling worker's code
    /// is (`#fileID`, `#line` of a primitive's or `fuzzPoint`'s caller), for
    /// the trace's next event; nothing otherwise.
    @inline(__always)
    static func locate(file: StaticString, line: UInt, label: StaticString? = nil) {
        guard let raw = stress_ambient() else {
            if stress_trial_is_running() != 0, let main = MainThreadControl.here {
                main.scheduler.locate(main.worker, file: file, line: line, label: label)
            }
            return
        }
        let context = AmbientContext.at(raw)
        guard let scheduler = context.pointee.scheduling else { return }
        scheduler.locate(context.pointee.thread, file: file, line: line, label: label)
    }

    /// Under controlled scheduling, a value the calling worker reports for the trace.
    static func traceValue(_ label: StaticString, _ value: Int, file: StaticString, line: UInt) {
        guard let raw = stress_ambient() else { return }
        let context = AmbientContext.at(raw)
        guard let scheduler = context.pointee.scheduling else { return }
        scheduler.noteValue(context.pointee.thread, label, value, file: file, line: line)
    }

    /// Notes that work escaped controlled scheduling (it runs on a thread the
    /// harness does not schedule): the trial's control becomes `partial`.
    static func escaped(_ what: @autoclosure () -> String) {
        guard let raw = stress_ambient(), let scheduler = AmbientContext.at(raw).pointee.scheduling else { return }
        scheduler.noteEscape(what())
    }

    /// What ``enter()`` did.
    struct BlockEntry {
        var participant: Int?
        var lent = false
    }
}

/// The board of the trial running in this process, for threads that are not
/// its workers (the main thread, dispatch threads). Set by the engine for the
/// length of a trial.
enum RunningTrial {
    /// The board's address (0: none).
    private static let current = Atomic<UInt>(0)

    /// The running trial's board, while one runs.
    static var board: SiteBoard? {
        let address = current.load(ordering: .acquiring)
        guard address != 0, let raw = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
        return Unmanaged<SiteBoard>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The board of the trial before, kept for one more trial: a thread
    /// that read the address just before the trial ended (a dispatch thread
    /// entering a block, the interposer on the main thread) may still be
    /// using it.
    private static let retired = Mutex<SiteBoard?>(nil)

    /// Makes `board` the running one (nil: none). The engine keeps it alive
    /// until it clears it; this keeps it a while longer.
    static func set(_ board: SiteBoard?) {
        if board == nil, let ending = self.board { retired.withLockSeen { $0 = ending } }
        current.store(board.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0, ordering: .releasing)
        stress_trial_set_running(board == nil ? 0 : 1)
    }
}
