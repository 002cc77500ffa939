import CStressSupport
import Synchronization

/// The main thread as a participant of the controlled schedule, while it runs
/// main-queue blocks that controlled workers submitted through ``StressQueue``
/// (``StressQueue/main``): it takes the run token before such a block and
/// hands it on after, so the policy picks it as any worker (its index is
/// ``mainSlot``, one past the workers), and what it holds and waits for is in
/// the model. A worker's `sync` to main is blocked in the model until the
/// main thread has run the block; the main thread waiting, inside a block,
/// for a lock held by a worker that `sync`s to main closes a wait-for cycle
/// the scheduler sees at once.
///
/// Between blocks the main thread is ``Status/idle``: neither runnable nor
/// stuck. It becomes runnable when a block is submitted under control, and
/// idle again when it has run the last one.
extension ControlledScheduler {
    /// A controlled worker `me` submitted a main-queue block (`async`): the
    /// main thread has one more block to run. Under the token, before the
    /// real submission. False when the main thread takes no part or control
    /// has ended (the block then runs free).
    func submitToMain(_ me: Int) -> Bool {
        lockState()
        defer { unlockState() }
        guard mainSlot >= 0, holdsToken(me) else { return false }
        addMainBlock()
        return true
    }

    /// A controlled worker `me` `sync`s to main: the main thread has one more
    /// block to run, and `me` is blocked in the model on the main queue until
    /// the main thread has run it (``endMainBlock(syncer:)`` makes it
    /// runnable). The token goes on now, without waiting for it: the caller
    /// then submits the real block, waits for it, and calls
    /// ``resumeAfterMainSync(_:)``. False when the main thread takes no part
    /// or control has ended (the caller syncs the ordinary way).
    func blockOnMainSync(_ me: Int) -> Bool {
        lockState()
        defer { unlockState() }
        guard mainSlot >= 0, holdsToken(me) else { return false }
        note(me, .acquire, .key(WaitKey.mainQueue), located: true)
        addMainBlock()
        status[me] = .blocked
        waitKey[me] = WaitKey.mainQueue
        decidingAt = Self.decidedInModel
        sequence &+= 1
        waitSequence[me] = sequence
        // The main thread runs a block that waits for what `me` holds:
        // a deadlock, found now.
        if let cycle = cycle(through: me, waitingFor: WaitKey.mainQueue) {
            noteStuck(cycle)
            reportDeadlock(stuck: cycle)
            parkForever(me)
        }
        switchAway(from: me, park: false)
        return true
    }

    /// Back from the real `sync` (its block has run on the main thread):
    /// waits until `me` holds the token again.
    func resumeAfterMainSync(_ me: Int) {
        waitForTurn(me)
        lockState()
        defer { unlockState() }
        guard token.pointee.load(ordering: .relaxed) == me, !isReleased else { return }
        note(me, .acquired, .key(WaitKey.mainQueue))
    }

    /// The main thread is about to run a block submitted under control: it
    /// waits for the token, then holds the main queue in the model. False
    /// when control has ended (the block then runs free).
    func beginMainBlock() -> Bool {
        waitForTurn(mainSlot)
        lockState()
        defer { unlockState() }
        guard holdsToken(mainSlot) else { return false }
        mainInBlock = true
        _ = resources.take(WaitKey.mainQueue, by: mainSlot, shared: false, reentrant: false)
        touch(WaitKey.mainQueue)
        note(mainSlot, .acquired, .key(WaitKey.mainQueue))
        return true
    }

    /// The main thread ran a block submitted under control (`syncer`: the
    /// worker that `sync`ed it, or -1 for an `async` one): it lets the main
    /// queue go, the syncer is runnable, and the token goes on (the main
    /// thread keeps it when the policy picks it again for its next block).
    func endMainBlock(syncer: Int) {
        lockState()
        defer { unlockState() }
        guard holdsToken(mainSlot) else { return }
        note(mainSlot, .release, .key(WaitKey.mainQueue))
        touch(WaitKey.mainQueue)
        // Nobody else takes the main queue in the model (a syncer waits for
        // its own block, not for the queue to free), so nobody is woken here
        // but the syncer.
        _ = resources.give(WaitKey.mainQueue, by: mainSlot)
        mainInBlock = false
        mainPending -= 1
        if syncer >= 0, status[syncer] == .blocked, waitKey[syncer] == WaitKey.mainQueue { status[syncer] = .runnable }
        status[mainSlot] = mainPending > 0 ? .runnable : .idle
        decidingAt = Self.decidedInModel
        switchAway(from: mainSlot, park: false)
    }

    /// Waits until the main thread has run every block submitted under
    /// control, once the workers have left (their blocks are part of the
    /// trial, and of its schedule), or until control ends or a stall was
    /// reported.
    func awaitMainIdle() {
        guard mainSlot >= 0 else { return }
        while true {
            lockState()
            let busy = mainPending > 0 && !isReleased && !stallReported
            unlockState()
            if !busy { return }
            MonotonicClock.sleep(nanoseconds: 100_000)
        }
    }

    /// Under the state lock: one more block for the main thread.
    private func addMainBlock() {
        mainPending += 1
        if status[mainSlot] == .idle { status[mainSlot] = .runnable }
    }
}

/// The controlled scheduler whose main thread takes part, while its trial
/// runs: how the harness-aware primitives on the main thread, which has no
/// worker context of its own, find their place in the schedule.
enum MainThreadControl {
    /// The scheduler's address (0: none).
    private static let current = Atomic<UInt>(0)
    /// Whether the main thread runs a block under control now (written and
    /// read on the main thread; atomic only to be shared).
    private static let running = Atomic<Bool>(false)
    private static let retained = Mutex<ControlledScheduler?>(nil)

    /// Whether the main thread was stuck in a stall a controlled trial
    /// reported: it stays stuck, as it would without control, so no later
    /// trial of this process can have it take part (nor replay a schedule
    /// that had it: shrinking is skipped).
    static var mainThreadLost: Bool { lost.load(ordering: .acquiring) }
    private static let lost = Atomic<Bool>(false)

    static func noteLost() { lost.store(true, ordering: .releasing) }

    /// Makes `scheduler` the one whose main thread takes part (nil: none).
    /// The engine keeps it alive meanwhile.
    static func set(_ scheduler: ControlledScheduler?) {
        // Kept until the next trial's: the main thread may have read the
        // address just before the trial ended.
        if let scheduler { retained.withLockSeen { $0 = scheduler } }
        current.store(scheduler.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) } ?? 0, ordering: .releasing)
    }

    /// The main thread's place in the schedule, while it runs a block under
    /// control and control lasts; nil on any other thread.
    static var here: ControlledWorker? {
        guard running.load(ordering: .relaxed), stress_is_main_thread() != 0 else { return nil }
        let address = current.load(ordering: .acquiring)
        guard address != 0, let raw = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
        let scheduler = Unmanaged<ControlledScheduler>.fromOpaque(raw).takeUnretainedValue()
        guard scheduler.mainSlot >= 0, !scheduler.isReleased else { return nil }
        return ControlledWorker(scheduler: scheduler, worker: scheduler.mainSlot)
    }

    /// Runs `work`, a main-queue block that `scheduler`'s worker `syncer`
    /// (-1: an `async` submission) submitted under control, as a controlled
    /// step of the main thread.
    static func runBlock<T>(_ scheduler: ControlledScheduler, syncer: Int, _ work: () throws -> T) rethrows -> T {
        guard scheduler.mainSlot >= 0, scheduler.beginMainBlock() else { return try work() }
        running.store(true, ordering: .relaxed)
        defer {
            running.store(false, ordering: .relaxed)
            scheduler.endMainBlock(syncer: syncer)
        }
        return try work()
    }
}
