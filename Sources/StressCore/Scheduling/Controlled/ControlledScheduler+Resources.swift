/// The model's side of blocking: what the harness-aware primitives and the
/// strategy's sections call under control, always from the token's holder.
extension ControlledScheduler {
    /// Takes `key` for `me` in the model: at once when it is free (or
    /// shared, or re-entered), else `me` is blocked and the token goes on
    /// until the key frees. A worker asking again for what it holds, where
    /// that does not re-enter, waits for itself: a deadlock, reported now.
    /// Returns false when control ended: the caller then takes the
    /// primitive the ordinary way (it may block for real).
    @discardableResult
    func acquire(_ me: Int, _ key: UInt64, shared: Bool = false, reentrant: Bool = false) -> Bool {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return false }
        return acquireLocked(me, key, shared: shared, reentrant: reentrant)
    }

    func acquireLocked(_ me: Int, _ key: UInt64, shared: Bool = false, reentrant: Bool = false, noted: Bool = true) -> Bool {
        if noted { note(me, .acquire, .key(key), located: true) }
        touch(key)
        var waited = false
        while !isReleased {
            switch resources.take(key, by: me, shared: shared, reentrant: reentrant) {
            case .granted:
                if waited { note(me, .acquired, .key(key)) }
                return true
            case .busy:
                waited = true
                if !blockLocked(me, on: key, as: .blocked) { return false }
            case .heldBySelf:
                // It waits for itself: a deadlock of one (the wait-for graph
                // shows the worker waiting for itself), and it stays stuck,
                // as it would for real.
                waitKey[me] = key
                noteStuck([me])
                reportDeadlock(stuck: [me])
                parkForever(me)
            }
        }
        return false
    }

    /// Takes `key` for `me` if the model says it is free (or re-entered);
    /// never blocks, as a `trylock` does not.
    func tryAcquire(_ me: Int, _ key: UInt64, reentrant: Bool = false) -> Bool {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return false }
        touch(key)
        let granted = resources.take(key, by: me, shared: false, reentrant: reentrant) == .granted
        if granted { note(me, .acquire, .key(key), located: true) }
        return granted
    }

    /// Gives back one hold of `key` taken by ``acquire(_:_:shared:reentrant:)``;
    /// the workers blocked on it become runnable when it frees. Called after
    /// the real primitive was released.
    func release(_ me: Int, _ key: UInt64) {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return }
        note(me, .release, .key(key), located: true)
        touch(key)
        if resources.give(key, by: me) { wakeAll(blockedOn: key) }
    }

    /// A condition wait: `me` gave up `lock` (the caller released the real
    /// lock first), waits on `condition` until signalled (or, `timed`, until
    /// its virtual deadline passes: when the policy chooses so, or when
    /// nothing else can run), then takes `lock`
    /// again in the model (the caller then takes the real one, which is
    /// free). Returns whether a signal (not the deadline) ended the wait; nil
    /// when control ended (the caller then treats it as a spurious wake-up).
    func wait(_ me: Int, on condition: UInt64, releasing lock: UInt64, timed: Bool) -> Bool? {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return nil }
        note(me, .wait, .key(condition), located: true)
        touch(lock)
        touch(condition)
        if resources.give(lock, by: me) { wakeAll(blockedOn: lock) }
        onCondition[me] = true
        let resumed = blockLocked(me, on: condition, as: timed ? .timedWaiting : .waiting)
        onCondition[me] = false
        guard resumed else { return nil }
        let signalled = !timedOut[me]
        guard acquireLocked(me, lock, noted: false) else { return nil }
        return signalled
    }
}
