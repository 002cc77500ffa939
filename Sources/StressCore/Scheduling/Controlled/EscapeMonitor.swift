import CStressSupport

/// Watches a controlled trial for a token holder that blocked where the
/// scheduler cannot see: an uninterposed lock, a raw system call, a sleep, a
/// `DispatchQueue` without the wrapper. Nothing else would ever run (the
/// others wait for the token it holds), so when no decision has been made
/// for ``escapeAfterNs`` and the holder's thread is asleep in the kernel,
/// the monitor marks it escaped and lets the others go on; the trial's
/// control becomes `partial`, saying where. The escaped worker rejoins at
/// its next scheduling point.
///
/// A holder that computes for long is left alone: its thread is running,
/// not asleep, and it will reach a point. So is one asleep on its own baton:
/// handed the token, it waits for its passer to wake it, and is woken.
final class EscapeMonitor: Sendable {
    /// How long a holder may sleep in the kernel with no decision made before
    /// it counts as escaped: far longer than any hand-off, short enough that
    /// a trial whose code blocks outside the model still moves.
    static let escapeAfterNs: UInt64 = 20_000_000
    /// How often the monitor looks.
    static let intervalNs: UInt64 = 2_000_000

    private let scheduler: ControlledScheduler
    private let board: SiteBoard
    private let stopping = ConditionSignal()

    init(scheduler: ControlledScheduler, board: SiteBoard) {
        self.scheduler = scheduler
        self.board = board
    }

    /// Starts watching on a thread of its own (nil where none could be made:
    /// the trial then runs unwatched, as before).
    func start() -> OSThread? { OSThread.spawn { [self] in watch() } }

    /// Stops watching, once the workers have ended.
    func stop(_ thread: OSThread?) {
        stopping.open()
        thread?.join()
    }

    private func watch() {
        var lastToken = -1, lastMark = -1
        var since = MonotonicClock.now()
        while !stopping.wait(upTo: Self.intervalNs) {
            if scheduler.isReleased || scheduler.hasReportedStall { return }
            let holder = scheduler.token.pointee.load(ordering: .acquiring)
            let mark = scheduler.decisionMark.pointee.load(ordering: .acquiring)
            let now = MonotonicClock.now()
            if holder != lastToken || mark != lastMark {
                (lastToken, lastMark, since) = (holder, mark, now)
                continue
            }
            guard holder >= 0, now &- since >= Self.escapeAfterNs, case let thread = threadID(of: holder), thread != 0,
                  KernelThreads.state(of: thread)?.isAsleep == true else { continue }
            scheduler.escape(holder, mark: mark, who: name(of: holder), place: place(of: holder))
            since = now
        }
    }

    /// The OS thread of participant `w`: a worker's from its line, the main
    /// thread's from ``MainThreadService`` and a queue worker's from the
    /// scheduler (their lines carry none).
    private func threadID(of w: Int) -> UInt64 {
        if w == scheduler.mainSlot { return MainThreadService.threadID }
        if scheduler.isQueueWorker(w) { return scheduler.queueWorkerThreadID(w) }
        return board.thread(w).id
    }

    /// Participant `w` in words, for the escape's record.
    private func name(of w: Int) -> String {
        if w == scheduler.mainSlot { return "the main thread" }
        if scheduler.isQueueWorker(w) { return scheduler.queueWorkerName(w) }
        return "worker \(w)"
    }

    /// Where worker `w` is, in words ("in step transfer/debit").
    private func place(of w: Int) -> String {
        if w == scheduler.mainSlot { return "in a main-queue block" }
        if scheduler.isQueueWorker(w) { return "in a block it runs" }
        let site = board.state(w).site.site
        guard let site, board.labels.indices.contains(site) else { return "outside any step" }
        return "in step \(board.labels[site])"
    }
}

extension ControlledScheduler {
    /// Whether a deadlock or livelock has been reported (the trial is over).
    var hasReportedStall: Bool {
        lockState()
        defer { unlockState() }
        return stallReported
    }

    /// `holder` (`who`, in words), still holding the token with no decision
    /// made since `mark`, is asleep in the kernel outside any point: it escapes control, and
    /// the token goes to another runnable worker (or to nobody, until it
    /// comes back).
    func escape(_ holder: Int, mark: Int, who: String, place: String) {
        lockState()
        defer { unlockState() }
        guard !isReleased, !stallReported, token.pointee.load(ordering: .relaxed) == holder,
              decisionMark.pointee.load(ordering: .relaxed) == mark, status[holder] == .runnable,
              // The main thread between blocks sleeps in its run loop until
              // the block it was picked for arrives: not an escape.
              holder != mainSlot || mainInBlock else { return }
        // Asleep on its own baton, the holder is no escape: it was handed
        // the token and its passer has not woken it yet (the passer wakes
        // it only after letting the state lock go, and may be preempted in
        // between for as long as the OS likes). It is woken here instead (a
        // second wake-up is harmless). Should it wake just before this look
        // and find the token gone after it, it rejoins by itself (see
        // ``ControlledScheduler/rejoinIfEscaped(_:)``).
        guard stress_baton_parked(batons + holder) == 0 else {
            stress_baton_wake(batons + holder)
            return
        }
        status[holder] = .escaped
        noteEscape("\(who) blocked in the kernel \(place), outside any scheduling point (a lock, queue, sleep "
                   + "or call the harness does not model): the others went on without it")
        pass(to: status.contains(.runnable) ? decide(current: -1) : -1)
    }
}
