/// Cycles through semaphores used as locks. Any worker may signal a
/// semaphore, so a cycle of workers each waiting for a semaphore the next
/// one took is not yet certain when it closes: a worker outside it may be
/// about to signal. It is certain once every worker outside it has ended.
/// So the closing wait stops the trial (no worker starts another
/// operation), the others finish the operations they are in, and when
/// nobody can run any more and the cycle still stands, it is a deadlock,
/// reported then, by the scheduler, with its cycle: at a decision the
/// schedule fixes, not after `deadlock_after` of wall time. Should a signal
/// end the cycle meanwhile, the trial just ends early.
extension ControlledScheduler {
    /// `me` took a unit of the lock-semaphore `key` (made with a value of 1
    /// or more).
    func tookSemaphore(_ me: Int, _ key: UInt64) {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return }
        resources.takeSemaphoreUnit(key, by: me)
    }

    /// `me` gave back a unit of the lock-semaphore `key` it took.
    func gaveSemaphore(_ me: Int, _ key: UInt64) {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return }
        resources.giveSemaphoreUnit(key, by: me)
    }

    /// Under the state lock, as `me` begins to wait for the semaphore `key`
    /// (at zero): when that closes a cycle through semaphores, the trial
    /// stops, so that the cycle is judged once the others have ended (see
    /// ``semaphoreDeadlock(among:)``).
    func stopIfSemaphoreCycle(_ me: Int, waitingFor key: UInt64) {
        guard semaphoreCycle(through: me, waitingFor: key) != nil, let control, control.current != TrialControl.stop else {
            return
        }
        control.enter(TrialControl.stop)
    }

    /// Under the state lock, when nobody can run and the trial is stopping:
    /// whether `live` (the workers neither finished nor idle, every one
    /// blocked or waiting) hold a cycle through semaphores. Every other
    /// worker has ended, so nobody is left to signal: a deadlock.
    func semaphoreDeadlock(among live: [Int]) -> Bool {
        live.contains { isSemaphoreWait($0) && semaphoreCycle(through: $0, waitingFor: waitKey[$0]) != nil }
    }

    /// The workers of a cycle that `me`, waiting for `key` (a semaphore),
    /// closes: each waits for a semaphore the next one alone took (or is
    /// blocked on a resource of the model the next one holds), the last for
    /// one `me` took. Nil when the chain ends (someone can still go on).
    func semaphoreCycle(through me: Int, waitingFor key: UInt64) -> [Int]? {
        var chain = [me]
        var wanted = key
        var onSemaphore = true
        for _ in 0..<workers {
            let holder = onSemaphore ? resources.soleSemaphoreHolder(of: wanted) : resources.owner(of: wanted)
            guard let holder else { return nil }
            if holder == me { return chain }
            guard !chain.contains(holder) else { return nil }
            if status[holder] == .blocked {
                onSemaphore = false
            } else if isSemaphoreWait(holder) {
                onSemaphore = true
            } else {
                return nil
            }
            chain.append(holder)
            wanted = waitKey[holder]
        }
        return nil
    }

    /// Whether `w` waits, without a deadline, for a signal that is not a
    /// condition's or a barrier's: a semaphore's. (A timed wait is no link
    /// of a cycle: its deadline passes when nobody else can run.)
    private func isSemaphoreWait(_ w: Int) -> Bool {
        status[w] == .waiting && !onCondition[w]
            && waitKey[w] != Self.rolesBarrier && waitKey[w] != Self.arbitrationBarrier
    }
}
