/// The decisions: who runs next, what happens when nobody can, and the
/// stalls found on the way. Everything here runs under the state lock.
extension ControlledScheduler {
    /// The next worker to run, after `current` passed a point (-1: none, as
    /// at the first decision). Never empty-handed: the caller made sure
    /// someone can run.
    func decide(current: Int) -> Int {
        if spuriousProbability > 0 { maybeWakeSpuriously() }
        // Who may run changes far less often than decisions are made: the
        // list is rebuilt only when it did, and the scans stop where the
        // slots that have only ever been idle begin (see ``StatusBoard``).
        // Each decider has a copy of its own (see ``RunnableLists``).
        // (The board is read in place here: handed to a function, its array
        // would be retained and released, a count both CPUs write.)
        let list = runnableLists(current >= 0 ? current : workers)
        if list.pointee.version != status.version {
            list.pointee.workers.removeAll(keepingCapacity: true)
            for w in 0..<status.limit where status[w] == .runnable { list.pointee.workers.append(w) }
            list.pointee.version = status.version
        }
        var oldest = -1
        for i in 0..<list.pointee.workers.count {
            let w = list.pointee.workers[i]
            if oldest < 0 || lastRan[w] < lastRan[oldest] { oldest = w }
        }
        var earliest = -1
        if status.timedWaiters > 0 {
            for w in 0..<status.limit where status[w] == .timedWaiting {
                if earliest < 0 || waitSequence[w] < waitSequence[earliest] { earliest = w }
            }
        }
        // The timed waiter whose wait may time out at this decision (-1: none).
        let late = earliest < 0 ? -1 : timeoutCandidate(earliest: earliest)
        let index = log.count
        if !roundEpochs && index > 0 && index % Self.epochLength == 0 {
            // A workload's execution that reached the epoch's end was a full
            // epoch long: the next is taken to be as long.
            executionStart = index
            longestExecution = Self.epochLength
            beginExecution(UInt64(index / Self.epochLength))
            policy.expectLength(Self.epochLength)
        }
        var chosen: Int
        var spinning = false
        let slot = current >= 0 ? current : workers
        // Each worker's count of decisions serves only shrinking's
        // deviations and exploration's choices: not kept otherwise, as one
        // more line a decision would write.
        var ordinal = 0
        if deviations != nil || choices != nil {
            ordinal = decisionsOf[slot]
            decisionsOf[slot] &+= 1
        }
        if let deviations {
            chosen = nonPreemptiveChoice(current: current)
            if let wanted = deviations[ScheduleDeviation.Place(current: current, ordinal: ordinal)],
               (0..<workers).contains(wanted), status[wanted] == .runnable || wanted == late {
                chosen = wanted
            }
        } else if let forced, !diverged, index < forced.count {
            chosen = forced[index]
            if !(0..<workers).contains(chosen) || (status[chosen] != .runnable && chosen != late) {
                diverged = true
                chosen = fallbackChoice(current: current, oldest: oldest, late: late)
            }
        } else {
            chosen = fallbackChoice(current: current, oldest: oldest, late: late)
            // A holder that keeps passing points while no operation ends
            // anywhere is spinning: let another run.
            if chosen == current, sinceSwitch >= Self.spinLimit, sinceOperationEnd >= Self.spinLimit, list.pointee.workers.count > 1 {
                spinning = true
                list.pointee.workers.removeAll { $0 == current }
                list.pointee.version = .max  // no longer the runnable workers: the next decision rebuilds the list
                let others = list.pointee.workers
                oldest = others.min { lastRan[$0] < lastRan[$1] } ?? others[0]
                chosen = fallback == .policy ? policy.nextWorker(among: others, oldest: oldest) : others[0]
            }
        }
        if chosen != current {
            sinceSwitch = 0
            if current >= 0 { noteSwitch(from: current, spinning: spinning) }
        }
        if choices != nil { noteChoice(current: current, chosen: chosen, ordinal: ordinal, spinning: spinning, late: late) }
        if chosen == late { timeOut(late) }
        lastRan[chosen] = index
        log.append(chosen)
        let run = log.openRun
        journal?.note(run: run.index, worker: chosen, length: run.length, decisions: log.count)
        decisionMark.pointee.store(log.count, ordering: .releasing)
        if chosen != current { hintNextWrites(openRun: run.index) }
        if log.count == haltAt { halt() }
        if log.count == maxDecisions { control?.enter(TrialControl.stop) }
        return chosen
    }

    /// Notes, for `chosen`'s worker, where its next decision will write
    /// outside the decision line (see ``DecisionLine/prefetchHinted()``).
    private func hintNextWrites(openRun: Int) {
        line.hint(.trace, trace.nextWrite)
        line.hint(.log, log.nextWrite)
        let journal = journal?.nextWrites(run: openRun)
        line.hint(.journalHeader, journal?.header)
        line.hint(.journalRun, journal?.run)
    }

    /// A scenario's round begins (told by the worker that decided at the
    /// round barrier, which holds the state lock there, or before the first
    /// round, when no worker runs): each round is an execution of its own,
    /// with a fresh policy (new PCT priorities and change points).
    func beginRound(_ round: Int) {
        roundEpochs = true
        longestExecution = Swift.max(longestExecution, log.count - executionStart)
        executionStart = log.count
        beginExecution(UInt64(round) &+ 1 << 32)
        policy.expectLength(expectedLength)
    }

    /// The policy of execution `epoch`: the current one restarted in place
    /// with the epoch's seed, or, for a policy that cannot restart, a new
    /// one. Either decides as a new one would; restarting spares every
    /// round an allocation of the existential's box and of the policy's
    /// arrays, and their release, under the state lock.
    private func beginExecution(_ epoch: UInt64) {
        policy.beginExecution(seed: policySeed(epoch))
        // The queue workers come after the workers and the main thread.
        policy.admitQueueWorkers(first: firstQueueWorker, count: QueueBook.slots)
    }

    /// The length the next execution's policy spreads its choices over: the
    /// longest execution measured so far, or the guess before any has been.
    var expectedLength: Int { longestExecution > 0 ? longestExecution : lengthGuess }

    /// The choice past the forced decisions: the policy's (which may time
    /// out `late`'s wait instead, when there is one), or the non-preemptive
    /// one (which never does: shrinking and exploration time a wait out
    /// only as a deviation of their own). Inlined into ``decide(current:)``.
    @inline(__always)
    private func fallbackChoice(current: Int, oldest: Int, late: Int) -> Int {
        guard fallback == .policy else { return nonPreemptiveChoice(current: current) }
        // The list is moved out of its memory for the call and back after,
        // not copied: a copy is a retain and a release, two atomic writes (on
        // x86 each also waits for every store before it to reach memory).
        // Moved, not swapped with an empty array: the empty array left over
        // was released after every call, a call into the runtime.
        let slot = runnableLists.workers(current >= 0 ? current : workers)
        let runnable = slot.move()
        let chosen = late < 0 ? policy.nextWorker(among: runnable, oldest: oldest)
            : policy.nextWorker(among: runnable, orTimeOut: late, oldest: oldest)
        slot.initialize(to: consume runnable)
        return chosen
    }

    /// The timed waiter whose wait may time out at this decision, while
    /// others could run, or -1: the one whose wait began first (`earliest`;
    /// deadlines are taken to come in the order the waits began, see the
    /// guide), once another worker has run since it began to wait. Timing a
    /// wait out at the very decision it blocks at would let a waiter that
    /// waits again in a loop time out for ever while nobody else moves, which
    /// no real clock allows; after one decision of another worker, it is a
    /// deadline that passed while the others were slow.
    func timeoutCandidate(earliest: Int) -> Int {
        for w in 0..<workers where w != earliest && lastRan[w] >= waitedSince[earliest] { return earliest }
        return -1
    }

    /// `waiter`'s deadline passes now (the decision chose it): it runs, and
    /// its wait reports a timeout. For exploration, the transition touches
    /// what it waited on, so that it never commutes with a signal of it.
    private func timeOut(_ waiter: Int) {
        status[waiter] = .runnable
        timedOut[waiter] = true
        note(waiter, .timedOut, .key(waitKey[waiter]))
        touch(waitKey[waiter])
    }

    /// Keeps the decision's alternatives, for exploration, and the
    /// footprint of the transition the last decision began.
    private func noteChoice(current: Int, chosen: Int, ordinal: Int, spinning: Bool, late: Int) {
        guard var list = choices else { return }
        choices = nil
        if let last = list.indices.last {
            list[last].footprint = Footprint(pure: !transitionOverflow && Self.isPure(start: transitionStart, end: decidingAt),
                                             keys: transitionKeys,
                                             local: transitionKeys.isEmpty && !transitionOverflow
                                                 && Self.isLocal(start: transitionStart, end: decidingAt))
        }
        var mask: UInt64 = 0
        for w in 0..<workers where status[w] == .runnable { mask |= 1 << UInt64(w) }
        list.append(Choice(current: current, runnable: mask, chosen: chosen, ordinal: ordinal, spun: spinning, timeout: late))
        choices = list
        if current >= 0 { pausedAt[current] = decidingAt }
        transitionStart = chosen == current ? decidingAt : pausedAt[chosen]
        transitionKeys.removeAll(keepingCapacity: true)
        transitionOverflow = false
    }

    /// `me` cannot or will not run on (blocked, or finished): the token goes
    /// to the policy's choice among the runnable workers (or a timed wait
    /// the policy times out). When nobody can run: the earliest timed
    /// waiter's deadline passes; else, while a worker runs
    /// uncontrolled (escaped), nobody holds the token until it comes back;
    /// else, if the trial is stopping, control ends; else it is a deadlock,
    /// reported now. With `park`, returns once `me` holds the token again.
    func switchAway(from me: Int, park: Bool) {
        while !(0..<status.limit).contains(where: { status[$0] == .runnable }) {
            if let late = earliestTimedWaiter() {
                status[late] = .runnable
                timedOut[late] = true
                note(late, .timedOut, .key(waitKey[late]))
                continue
            }
            if status.contains(.escaped) {
                pass(to: -1)
                if park { parkUntilTurn(me) }
                return
            }
            // Every worker has finished, and the main thread and the queue
            // workers are idle: their next block could only come from a
            // live worker, so none can come, and the queue workers end.
            let live = (0..<workers).filter { status[$0] != .finished && status[$0] != .absent && status[$0] != .idle }
            if live.isEmpty {
                retireQueueWorkers()
                return
            }
            // Stopping, the workers left wait for work that will not come
            // (control ends: a condition wait returns as a spurious wake-up),
            // unless they wait for each other's semaphores: nobody else is
            // left to signal, so that is a deadlock.
            if control?.current == TrialControl.stop && !semaphoreDeadlock(among: live) {
                release()
                return
            }
            noteStuck(live)
            reportDeadlock(stuck: live)
            // The report ends the trial; the stuck workers stay stuck, as
            // they would without control.
            if park { parkForever(me) }
            return
        }
        let next = decide(current: me)
        if next == me { return }
        if park { handOff(from: me, to: next) } else { pass(to: next) }
    }

    /// A replay of a crashed run has made the crashed run's last decision:
    /// the trace and schedule so far go to ``onHalt`` (which ends the
    /// process) before the chosen worker runs into the crash again.
    func halt() {
        onHalt?(recordLocked(), traceEventsLocked())
    }

    /// Hands the deadlock's report on, once.
    func reportDeadlock(stuck: [Int]) {
        guard !stallReported else { return }
        stallReported = true
        if stuck.contains(mainSlot) { MainThreadControl.noteLost() }
        onDeadlock(stuck, recordLocked(), stallDetailLocked())
    }

    /// No operation ended for ``livelockLimit`` points: reported once, and
    /// `worker` (the one spinning now) stays parked, as a spinning thread
    /// would never get on.
    func reportLivelock(_ worker: Int) {
        guard !stallReported, let onLivelock else { return }
        stallReported = true
        if worker == mainSlot { MainThreadControl.noteLost() }
        onLivelock(worker, Self.livelockLimit, recordLocked(), stallDetailLocked())
        parkForever(worker)
    }

    /// Lets the state lock go and parks `me` for good: a worker of a stall
    /// that has been reported, which nobody will pass the token to.
    func parkForever(_ me: Int) -> Never {
        unlockState()
        while true {
            waitForTurn(me)
            MonotonicClock.sleep(nanoseconds: 1_000_000_000)
        }
    }

    /// With the seeded probability, wakes the longest waiter on a condition
    /// with no signal.
    func maybeWakeSpuriously() {
        guard Double(spuriousDraws.next() >> 11) * 0x1p-53 < spuriousProbability else { return }
        var chosen = -1
        for w in 0..<workers where onCondition[w] && (status[w] == .waiting || status[w] == .timedWaiting) {
            if chosen < 0 || waitSequence[w] < waitSequence[chosen] { chosen = w }
        }
        if chosen >= 0 { status[chosen] = .runnable }
    }

    func earliestTimedWaiter() -> Int? {
        var chosen: Int?
        for w in 0..<workers where status[w] == .timedWaiting {
            if chosen == nil || waitSequence[w] < waitSequence[chosen!] { chosen = w }
        }
        return chosen
    }
}
