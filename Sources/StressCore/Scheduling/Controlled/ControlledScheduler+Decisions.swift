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
        if !roundEpochs && index > 0 && index % Self.epochLength == 0 { policy = makePolicy(UInt64(index / Self.epochLength)) }
        var chosen: Int
        if let forced, !diverged, index < forced.count {
            chosen = forced[index]
            if !(0..<workers).contains(chosen) || status[chosen] != .runnable {
                diverged = true
                chosen = policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
            }
        } else {
            chosen = policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
            // A holder that keeps passing points while no operation ends
            // anywhere is spinning: let another run.
            if chosen == current, sinceSwitch >= Self.spinLimit, sinceOperationEnd >= Self.spinLimit, runnable.count > 1 {
                runnable.removeAll { $0 == current }
                oldest = runnable.min { lastRan[$0] < lastRan[$1] } ?? runnable[0]
                chosen = policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
            }
        }
        if chosen != current { sinceSwitch = 0 }
        lastRan[chosen] = index
        log.append(chosen)
        decisionMark.store(log.count, ordering: .releasing)
        if log.count == maxDecisions { control?.enter(TrialControl.stop) }
        return chosen
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
            let live = (0..<workers).filter { status[$0] != .finished && status[$0] != .absent }
            if live.isEmpty { return }
            if control?.current == TrialControl.stop {
                release()
                return
            }
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

    /// Hands the deadlock's report on, once.
    func reportDeadlock(stuck: [Int]) {
        guard !stallReported else { return }
        stallReported = true
        onDeadlock(stuck, recordLocked())
    }

    /// No operation ended for ``livelockLimit`` points: reported once, and
    /// `worker` (the one spinning now) stays parked, as a spinning thread
    /// would never get on.
    func reportLivelock(_ worker: Int) {
        guard !stallReported, let onLivelock else { return }
        stallReported = true
        onLivelock(worker, Self.livelockLimit, recordLocked())
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
