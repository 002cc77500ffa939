import CStressSupport

/// Blocks submitted with `StressQueue.async` under control: they wait in the
/// model (``QueueBook``) instead of on a dispatch queue, and a *queue worker*,
/// a participant of the schedule numbered after the thread workers and the
/// main thread (``mainSlot``'s index, kept where it takes no part), runs
/// them one by one when the policy picks it. So the policy decides when an
/// asynchronous block runs against the workers' steps, a `sync` runs after
/// the blocks submitted before it (first in, first out, as on a dispatch
/// queue), and blocks still waiting when the workers end are drained under
/// control before the trial's final checks.
extension ControlledScheduler {
    /// The first queue worker's index (after the thread workers and the
    /// main thread's index).
    var firstQueueWorker: Int { workers - QueueBook.slots }

    /// The name of each queue worker that has served a queue, for a stall's summary.
    func queueWorkerNames() -> [Int: String] {
        var names: [Int: String] = [:]
        for queue in queueBook.queues {
            for w in queue.slots { names[w] = "the queue worker of " + PrimitiveNames.describe(queue.key) }
        }
        return names
    }

    /// Whether `w` is a queue worker.
    func isQueueWorker(_ w: Int) -> Bool { w >= firstQueueWorker }

    /// Queue worker `w`'s OS thread id (0 before its thread started).
    func queueWorkerThreadID(_ w: Int) -> UInt64 {
        lockState()
        defer { unlockState() }
        return queueBook.threadIDs[w - firstQueueWorker]
    }

    /// What queue worker `w` serves, in words ("the queue worker of the queue 'jobs'").
    func queueWorkerName(_ w: Int) -> String {
        lockState()
        defer { unlockState() }
        let q = queueBook.queueOfSlot[w - firstQueueWorker]
        return q < 0 ? "queue worker \(w)" : "the queue worker of " + PrimitiveNames.describe(queueBook.queues[q].key)
    }

    /// Submits `run` to the queue of `key` on behalf of `me` (the token's
    /// holder). Nil when taken; else why the block cannot be taken under
    /// control (control has ended, or every queue worker serves another
    /// queue, which the record then says): the caller then submits it to the
    /// dispatch queue, and control is partial.
    func submit(_ me: Int, queue key: UInt64, concurrent: Bool, barrier: Bool, delayed: Bool,
                run: @escaping @Sendable () -> Void) -> QueueBook.Refusal? {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return .notControlled }
        let q: Int
        if let known = queueBook.index(of: key), !queueBook.queues[known].slots.isEmpty {
            q = known
            // A queue made where a dead one of the other kind was (same
            // address, so the same key): idle, it takes the new kind.
            if queueBook.queues[q].isIdle { queueBook.queues[q].concurrent = concurrent }
        } else {
            guard let slots = claimQueueWorkers(count: concurrent ? 2 : 1) else {
                noteEscape(QueueBook.outOfSlots(key))
                return .noQueueWorker
            }
            PrimitiveNames.register(QueueTurnKey.of(key), "its turn on \(PrimitiveNames.describe(key))")
            q = queueBook.place(QueueBook.Queue(key: key, concurrent: concurrent, slots: slots))
            for w in slots { queueBook.queueOfSlot[w - firstQueueWorker] = q }
        }
        queueBook.queues[q].pending.append(QueueBook.Block(ticket: queueBook.ticket(), barrier: barrier, delayed: delayed, run: run))
        note(me, .point, .label(delayed ? "asyncAfter: block queued" : "async: block queued"), located: true)
        touch(key)
        refreshQueue(q)
        return nil
    }

    /// `count` queue workers for a queue new to the book (fewer when fewer
    /// can be had, at least one), or nil when none can: slots never used
    /// start a thread; past those, a queue with nothing queued, running or
    /// waiting gives its workers up (a queue made for one round of a
    /// scenario, say, and not used since), as a queue's blocks need a
    /// worker only while it has some. A queue left with none leaves the
    /// book; its next block finds it new again.
    private func claimQueueWorkers(count: Int) -> [Int]? {
        var claimed: [Int] = []
        for s in 0..<QueueBook.slots where queueBook.queueOfSlot[s] < 0 && claimed.count < count {
            let w = firstQueueWorker + s
            guard let thread = OSThread.spawn({ [self] in self.serveQueue(w) }) else { break }
            queueBook.threads.append(thread)
            claimed.append(w)
        }
        for q in queueBook.queues.indices where claimed.count < count && queueBook.queues[q].isIdle
            && !queueBook.queues[q].slots.isEmpty {
            while claimed.count < count, let w = queueBook.queues[q].slots.popLast() {
                status[w] = .idle
                claimed.append(w)
            }
            if queueBook.queues[q].slots.isEmpty { queueBook.queues[q] = QueueBook.Queue.vacant }
        }
        return claimed.isEmpty ? nil : claimed
    }

    /// Offers the queue's next block: its first idle queue worker becomes
    /// runnable when the block may start, the others idle. A queue worker
    /// running a block is left to itself.
    func refreshQueue(_ q: Int) {
        let queue = queueBook.queues[q]
        var offered = false
        for w in queue.slots where queueBook.runningBarrier[w - firstQueueWorker] == nil
            && (status[w] == .idle || status[w] == .runnable) {
            if queue.headCanStart && !offered {
                status[w] = .runnable
                offered = true
            } else {
                status[w] = .idle
            }
        }
    }

    /// A `sync` onto the queue of `key` by `me` takes its place in the
    /// queue's order: it waits (blocked in the model) until every block
    /// submitted before it has started, and no block submitted after it
    /// starts before it has the queue. Returns its ticket for
    /// ``leaveQueueLine(_:queue:ticket:)``; nil when the queue has no block
    /// under control (or control ended).
    func enterQueueLine(_ me: Int, queue key: UInt64) -> UInt64? {
        lockState()
        defer { unlockState() }
        guard holdsToken(me), let q = queueBook.index(of: key) else { return nil }
        let ticket = queueBook.ticket()
        queueBook.queues[q].waitingSyncs.append(ticket)
        refreshQueue(q)
        while queueBook.queues[q].pending.contains(where: { !$0.delayed && $0.ticket < ticket })
            || queueBook.queues[q].starting.contains(where: { $0 < ticket }) {
            guard blockLocked(me, on: QueueTurnKey.of(key), as: .blocked) else { break }
        }
        return ticket
    }

    /// The `sync` of `ticket` has the queue (or gave up): later blocks may start.
    func leaveQueueLine(_ me: Int, queue key: UInt64, ticket: UInt64) {
        lockState()
        defer { unlockState() }
        guard let q = queueBook.index(of: key) else { return }
        queueBook.queues[q].waitingSyncs.removeAll { $0 == ticket }
        if !isReleased { refreshQueue(q) }
    }

    /// Under the state lock: every thread worker has finished and every
    /// queue worker is idle, so no block can be submitted any more: the
    /// queue workers end.
    func retireQueueWorkers() {
        for w in firstQueueWorker..<workers where status[w] == .idle { status[w] = .finished }
        queuesRetired.store(true, ordering: .releasing)
        wakeAll()
    }

    /// Books what the code under test reported from a queue worker's blocks.
    func noteQueueViolations(_ context: AmbientContext) {
        guard context.violationCount > 0 else { return }
        queueViolations.withLockSeen {
            $0.count += context.violationCount
            $0.samples += context.samples.prefix(Swift.max(0, 8 - $0.samples.count))
        }
    }

    /// Joins the queue workers' threads, once the thread workers have
    /// ended: waits until every block, the main thread's and the queues',
    /// has run (a main-queue block may submit to a queue, and a queue's
    /// block to the main queue, so neither is done before both are); the
    /// queue workers are retired by then and end. After a stall, whose
    /// participants stay parked as stuck workers do, or once control has
    /// ended, it waits no more.
    func joinQueueWorkers() {
        while true {
            lockState()
            let busy = (mainPending > 0 || queuesBusy) && !isReleased && !stallReported
            unlockState()
            if !busy { break }
            MonotonicClock.sleep(nanoseconds: 100_000)
        }
        lockState()
        let threads = queueBook.threads
        queueBook.threads = []
        let stalled = stallReported && !isReleased
        unlockState()
        if stalled { return }
        for thread in threads { thread.join() }
    }

    // MARK: - A queue worker's thread

    /// Queue worker `w`'s thread: runs its queue's blocks whenever it holds
    /// the token, until it is retired (or control ends: then what is left
    /// runs without control).
    private func serveQueue(_ w: Int) {
        lockState()
        queueBook.threadIDs[w - firstQueueWorker] = stress_thread_id()
        unlockState()
        let ambient = UnsafeMutablePointer<AmbientContext>.allocate(capacity: 1)
        ambient.initialize(to: AmbientContext(
            fuzzer: Fuzzer(settings: FuzzSettings(.off), seed: 0, thread: w, threads: workers, coordinator: self, probe: .detached),
            thread: w, probe: .detached, labels: [], samplesLimit: 8))
        ambient.pointee.scheduling = self
        stress_ambient_set(UnsafeMutableRawPointer(ambient))
        defer {
            stress_ambient_set(nil)
            noteQueueViolations(ambient.pointee)
            ambient.deinitialize(count: 1)
            ambient.deallocate()
        }
        while awaitQueueTurn(w) {
            lockState()
            guard !isReleased else {
                unlockState()
                break
            }
            let q = queueBook.queueOfSlot[w - firstQueueWorker]
            guard queueBook.queues[q].headCanStart else {
                // Chosen with nothing to start (cannot happen while the
                // book is consistent): idle again.
                status[w] = .idle
                switchAway(from: w, park: false)
                unlockState()
                continue
            }
            let block = startBlock(on: q, by: w)
            unlockState()
            let entry = Participation.enter()
            block.run()
            Participation.leave(entry)
            lockState()
            finishBlock(block, on: q, by: w)
            guard !isReleased else {
                unlockState()
                break
            }
            if status[w] == .runnable {
                // A point between two blocks: another worker may run first.
                decidingAt = Self.decidedElsewhere
                let next = decide(current: w)
                if next != w { pass(to: next) }
            } else {
                switchAway(from: w, park: false)
            }
            unlockState()
        }
        runLeftBlocksFreely(w)
    }

    /// Waits until queue worker `w` holds the token: false once it is
    /// retired or control has ended.
    private func awaitQueueTurn(_ w: Int) -> Bool {
        waitForTurn(w)
        return token.pointee.load(ordering: .acquiring) == w && !isReleased && !queuesRetired.load(ordering: .acquiring)
    }

    private func startBlock(on q: Int, by w: Int) -> QueueBook.Block {
        let block = queueBook.queues[q].pending.removeFirst()
        queueBook.queues[q].running += 1
        if block.barrier { queueBook.queues[q].barrierRunning = true }
        queueBook.runningBarrier[w - firstQueueWorker] = block.barrier
        queueBook.runningTicket[w - firstQueueWorker] = block.ticket
        queueBook.queues[q].starting.append(block.ticket)
        refreshQueue(q)
        return block
    }

    /// Queue worker `w`'s block holds its queue in the model: the `sync`
    /// calls submitted after it, waiting for it, may go on (and wait for
    /// the queue behind it).
    func queueBlockHoldsQueue(_ w: Int) {
        lockState()
        defer { unlockState() }
        guard isQueueWorker(w), case let q = queueBook.queueOfSlot[w - firstQueueWorker], q >= 0 else { return }
        let ticket = queueBook.runningTicket[w - firstQueueWorker]
        queueBook.queues[q].starting.removeAll { $0 == ticket }
        wakeAll(blockedOn: QueueTurnKey.of(queueBook.queues[q].key))
    }

    private func finishBlock(_ block: QueueBook.Block, on q: Int, by w: Int) {
        queueBook.queues[q].running -= 1
        if block.barrier { queueBook.queues[q].barrierRunning = false }
        queueBook.runningBarrier[w - firstQueueWorker] = nil
        queueBook.queues[q].starting.removeAll { $0 == block.ticket }
        // A block that ended is progress, as an operation's end is: a long
        // drain is not a spin, nor a livelock.
        sinceOperationEnd = 0
        if status[w] == .runnable { status[w] = .idle }
        refreshQueue(q)
        if !queuesBusy { wakeAll(blockedOn: QueueTurnKey.drained) }
    }

    /// Whether any block is queued or running.
    var queuesBusy: Bool {
        queueBook.queues.contains { !$0.pending.isEmpty || $0.running > 0 }
    }

    /// Control ended with blocks still waiting: the queue's first worker
    /// runs them, in order, on the real queue (each through `sync`, so the
    /// queue's own exclusion holds against the workers now running free).
    private func runLeftBlocksFreely(_ w: Int) {
        lockState()
        let q = queueBook.queueOfSlot[w - firstQueueWorker]
        var left: [QueueBook.Block] = []
        if q >= 0, queueBook.queues[q].slots.first == w {
            left = queueBook.queues[q].pending
            queueBook.queues[q].pending = []
        }
        unlockState()
        for block in left {
            let entry = Participation.enter()
            block.run()
            Participation.leave(entry)
        }
    }
}
