/// The decisions: who runs next, what happens when nobody can, and the
/// stalls found on the way. Everything here runs under the state lock.
extension ControlledScheduler {
    /// The next worker to run, after `current` passed a point (-1: none, as
    /// at the first decision). Never empty-handed: the caller made sure
    /// someone can run.
    func decide(current: Int) -> Int {
        if spuriousProbability > 0 { maybeWakeSpuriously() }
        runnable.removeAll(keepingCapacity: true)
        var oldest = -1
        for w in 0..<workers where status[w] == .runnable {
            runnable.append(w)
            if oldest < 0 || lastRan[w] < lastRan[oldest] { oldest = w }
        }
        let index = log.count
        if !roundEpochs && index > 0 && index % Self.epochLength == 0 {
            // A workload's execution that reached the epoch's end was a full
            // epoch long: the next is taken to be as long.
            executionStart = index
            longestExecution = Self.epochLength
            var next = makePolicy(UInt64(index / Self.epochLength))
            next.expectLength(Self.epochLength)
            policy = next
        }
        var chosen: Int
        var spinning = false
        let slot = current >= 0 ? current : workers
        let ordinal = decisionsOf[slot]
        decisionsOf[slot] &+= 1
        if let deviations {
            chosen = nonPreemptiveChoice(current: current)
            if let wanted = deviations[ScheduleDeviation.Place(current: current, ordinal: ordinal)],
               (0..<workers).contains(wanted), status[wanted] == .runnable {
                chosen = wanted
            }
        } else if let forced, !diverged, index < forced.count {
            chosen = forced[index]
            if !(0..<workers).contains(chosen) || status[chosen] != .runnable {
                diverged = true
                chosen = fallbackChoice(current: current, oldest: oldest)
            }
        } else {
            chosen = fallbackChoice(current: current, oldest: oldest)
            // A holder that keeps passing points while no operation ends
            // anywhere is spinning: let another run.
            if chosen == current, sinceSwitch >= Self.spinLimit, sinceOperationEnd >= Self.spinLimit, runnable.count > 1 {
                spinning = true
                runnable.removeAll { $0 == current }
                oldest = runnable.min { lastRan[$0] < lastRan[$1] } ?? runnable[0]
                chosen = fallback == .policy ? policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false) : runnable[0]
            }
        }
        if chosen != current {
            sinceSwitch = 0
            if current >= 0 { noteSwitch(from: current, spinning: spinning) }
        }
        if choices != nil { noteChoice(current: current, chosen: chosen, ordinal: ordinal, spinning: spinning) }
        lastRan[chosen] = index
        log.append(chosen)
        journal?.note(chosen)
        decisionMark.store(log.count, ordering: .releasing)
        if log.count == haltAt { halt() }
        if log.count == maxDecisions { control?.enter(TrialControl.stop) }
        return chosen
    }

    /// The choice past the forced decisions: the policy's, or the
    /// non-preemptive one.
    private func fallbackChoice(current: Int, oldest: Int) -> Int {
        fallback == .policy ? policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
            : nonPreemptiveChoice(current: current)
    }

    /// Keeps the decision's alternatives, for exploration, and the
    /// footprint of the transition the last decision began.
    private func noteChoice(current: Int, chosen: Int, ordinal: Int, spinning: Bool) {
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
        list.append(Choice(current: current, runnable: mask, chosen: chosen, ordinal: ordinal, spun: spinning))
        choices = list
        if current >= 0 { pausedAt[current] = decidingAt }
        transitionStart = chosen == current ? decidingAt : pausedAt[chosen]
        transitionKeys.removeAll(keepingCapacity: true)
        transitionOverflow = false
    }

    /// `me` cannot or will not run on (blocked, or finished): the token goes
    /// to the policy's choice among the runnable workers. When nobody can
    /// run: a timed waiter's deadline passes; else, while a worker runs
    /// uncontrolled (escaped), nobody holds the token until it comes back;
    /// else, if the trial is stopping, control ends; else it is a deadlock,
    /// reported now. With `park`, returns once `me` holds the token again.
    func switchAway(from me: Int, park: Bool) {
        while !(0..<workers).contains(where: { status[$0] == .runnable }) {
            if let late = earliestTimedWaiter() {
                status[late] = .runnable
                timedOut[late] = true
                continue
            }
            if status.contains(.escaped) {
                pass(to: -1)
                if park { parkUntilTurn(me) }
                return
            }
            // An idle queue worker waits for a block only a live worker could submit.
            let live = (0..<workers).filter { status[$0] != .finished && status[$0] != .absent && status[$0] != .idle }
            if live.isEmpty {
                retireQueueWorkers()
                return
            }
            if control?.current == TrialControl.stop {
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
        pass(to: next)
        if park { parkUntilTurn(me) }
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
        onDeadlock(stuck, recordLocked(), stallDetailLocked())
    }

    /// No operation ended for ``livelockLimit`` points: reported once, and
    /// `worker` (the one spinning now) stays parked, as a spinning thread
    /// would never get on.
    func reportLivelock(_ worker: Int) {
        guard !stallReported, let onLivelock else { return }
        stallReported = true
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
