/// Blocking in the model: a worker that cannot go on hands the token on
/// until a resource frees, a signal comes or a barrier fills.
extension ControlledScheduler {
    /// Under the state lock: `me` cannot go on until `key` frees
    /// (``Status/blocked``) or until a signal (``Status/waiting``,
    /// ``Status/timedWaiting``): the token goes to another worker. Returns
    /// when `me` runs again; false when control ended meanwhile (the caller
    /// then uses the primitive's own blocking).
    func blockLocked(_ me: Int, on key: UInt64, as kind: Status) -> Bool {
        guard !isReleased else { return false }
        status[me] = kind
        waitKey[me] = key
        decidingAt = key == Self.rolesBarrier || key == Self.arbitrationBarrier ? Self.decidedElsewhere : Self.decidedInModel
        sequence &+= 1
        waitSequence[me] = sequence
        timedOut[me] = false
        waitedSince[me] = log.count
        // Some workers waiting for each other in a circle while the rest go
        // on: a deadlock of those, found now rather than when all are stuck.
        if kind == .blocked, let cycle = cycle(through: me, waitingFor: key) {
            noteStuck(cycle)
            reportDeadlock(stuck: cycle)
            parkForever(me)
        }
        switchAway(from: me, park: true)
        return !isReleased
    }

    /// The workers of a cycle of exclusive holds that `me`, waiting for
    /// `key`, closes: each blocked on what the next holds, the last on what
    /// `me` holds. Nil when the chain of owners ends (someone can go on).
    func cycle(through me: Int, waitingFor key: UInt64) -> [Int]? {
        var chain = [me]
        var wanted = key
        for _ in 0..<workers {
            guard let owner = resources.owner(of: wanted) else { return nil }
            if owner == me { return chain }
            guard status[owner] == .blocked, !chain.contains(owner) else { return nil }
            chain.append(owner)
            wanted = waitKey[owner]
        }
        return nil
    }

    /// Waits until `key` is signalled (a semaphore at zero): false when
    /// control ended meanwhile; `timedOut` says whether a timed wait's
    /// virtual deadline ended it.
    func awaitSignal(_ me: Int, on key: UInt64, timed: Bool) -> (resumed: Bool, timedOut: Bool) {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return (false, false) }
        note(me, .wait, .key(key), located: true)
        touch(key)
        stopIfSemaphoreCycle(me, waitingFor: key)
        let resumed = blockLocked(me, on: key, as: timed ? .timedWaiting : .waiting)
        return (resumed, resumed && timedOut[me])
    }

    /// Under the state lock: makes runnable the workers blocked on `key` (a
    /// resource freed).
    func wakeAll(blockedOn key: UInt64) {
        for w in 0..<status.limit where status[w] == .blocked && waitKey[w] == key {
            status[w] = .runnable
        }
    }

    /// Wakes the longest waiter on condition `key`, or every one.
    func signal(_ me: Int, _ key: UInt64, all: Bool) {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return }
        note(me, .signal, .key(key), located: true)
        touch(key)
        signalLocked(key, all: all)
    }

    func signalLocked(_ key: UInt64, all: Bool) {
        if all {
            for w in 0..<status.limit where (status[w] == .waiting || status[w] == .timedWaiting) && waitKey[w] == key {
                status[w] = .runnable
            }
            return
        }
        var chosen = -1
        for w in 0..<status.limit where (status[w] == .waiting || status[w] == .timedWaiting) && waitKey[w] == key {
            if chosen < 0 || waitSequence[w] < waitSequence[chosen] { chosen = w }
        }
        if chosen >= 0 { status[chosen] = .runnable }
    }

    /// The keys of a scenario's two barriers in the model.
    static let rolesBarrier: UInt64 = 0xBA22_1E20_0000_0001
    static let arbitrationBarrier: UInt64 = 0xBA22_1E20_0000_0002

    /// Worker `me` meets the others at barrier `key` of `parties`: the last
    /// to arrive runs `decide` and wakes the rest, who are blocked there in
    /// the model meanwhile. Returns the decision (0 once control has ended:
    /// the round loop then ends).
    func meet(_ me: Int, at key: UInt64, parties: Int, decide: () -> Int) -> Int {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return 0 }
        note(me, .wait, .barrier)
        // A barrier runs a round's arbiter and reset (code under test): the
        // transition through it may touch anything.
        transitionOverflow = true
        let i = meetings.firstIndex { $0.key == key } ?? {
            meetings.append((key, 0, 0))
            return meetings.count - 1
        }()
        meetings[i].arrived += 1
        if meetings[i].arrived == parties {
            // The round's blocks still queued run before the round ends, so
            // its arbiter sees them.
            while queuesBusy {
                guard blockLocked(me, on: QueueTurnKey.drained, as: .blocked) else { return 0 }
            }
            meetings[i].arrived = 0
            meetings[i].decision = decide()
            signalLocked(key, all: true)
            return meetings[i].decision
        }
        guard blockLocked(me, on: key, as: .waiting) else { return 0 }
        return meetings[i].decision
    }
}
