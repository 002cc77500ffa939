#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Synchronization

/// The state lock, the token and the batons: how the workers take turns.
extension ControlledScheduler {
    /// Takes the state lock: spins, then yields (its holder may be a thread
    /// the OS has not run).
    func lockState() {
        stress_tsan_unseen_begin()  // ThreadSanitizer: the bookkeeping must not order the workers
        var tries = 0
        while !stateLock.pointee.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            tries &+= 1
            if tries & 63 == 0 { sched_yield() } else { stress_cpu_relax() }
        }
    }

    func unlockState() {
        stateLock.pointee.store(false, ordering: .releasing)
        stress_tsan_unseen_end()
    }

    /// Gives the token to `next` (-1: to nobody, while the only workers who
    /// could go on run uncontrolled) and wakes it. Under the state lock.
    func pass(to next: Int) {
        token.pointee.store(next, ordering: .releasing)
        if next >= 0 { stress_baton_pass(batons + next) }
    }

    /// Waits, outside the state lock, until `me` holds the token or control ends.
    ///
    /// Once its baton turns, the worker asks for the lines its next decision
    /// writes (see ``DecisionLine``) before it reads the token, and for the
    /// memory the hints name once it holds it. Woken without the token, it
    /// rejoins if it was marked escaped meanwhile (see ``rejoinIfEscaped(_:)``).
    func waitForTurn(_ me: Int) {
        let baton = batons + me
        var waited = false
        while token.pointee.load(ordering: .acquiring) != me && !released.load(ordering: .acquiring) {
            if waited { rejoinIfEscaped(me) }
            let seen = stress_baton_turn(baton)
            if token.pointee.load(ordering: .acquiring) == me || released.load(ordering: .acquiring)
                || queuesRetired.load(ordering: .acquiring) { break }
            stress_baton_wait(baton, seen, Int32(spins), Int32(yields))
            line.prefetchLines()
            waited = true
        }
        if waited { line.prefetchHinted() }
    }

    /// `me`, woken without the token, looks (under the state lock) whether
    /// the escape monitor marked it escaped while it slept: handed the
    /// token, it was woken too late, after the monitor had judged it asleep
    /// outside any point and given the token on. No decision picks an
    /// escaped worker, so it would wait for good; it rejoins as a worker
    /// coming back from an escape does (``ensureHolder(_:)``).
    func rejoinIfEscaped(_ me: Int) {
        lockState()
        defer { unlockState() }
        guard !isReleased, status[me] == .escaped, token.pointee.load(ordering: .relaxed) != me else { return }
        status[me] = .runnable
        if token.pointee.load(ordering: .relaxed) < 0 { pass(to: decide(current: -1)) }
    }

    /// Called under the state lock: lets it go while `me` waits for its
    /// turn, and takes it back.
    func parkUntilTurn(_ me: Int) {
        unlockState()
        waitForTurn(me)
        lockState()
    }

    /// ``ensureHolder(_:)``, its common case inlined: `me` holds the token
    /// and control goes on. (Called at every point: the call alone was
    /// about 20 of a decision's 600 instructions.)
    @inline(__always)
    func holdsToken(_ me: Int) -> Bool {
        if token.pointee.load(ordering: .relaxed) == me && !released.load(ordering: .acquiring) { return true }
        return ensureHolder(me)
    }

    /// Under the state lock, at a call from `me`: whether `me` may go on as
    /// the token's holder. A worker that escaped control (see
    /// ``EscapeMonitor``) comes back here: runnable again, it waits for its
    /// turn (or takes the token, when nobody holds it). False once control
    /// has ended.
    @inline(never)
    func ensureHolder(_ me: Int) -> Bool {
        guard !isReleased else { return false }
        if token.pointee.load(ordering: .relaxed) == me { return true }
        guard status[me] == .escaped else { return false }
        status[me] = .runnable
        if token.pointee.load(ordering: .relaxed) < 0 { pass(to: decide(current: -1)) }
        if token.pointee.load(ordering: .relaxed) != me { parkUntilTurn(me) }
        return !isReleased
    }

    /// Ends control: every worker runs free from here (the primitives take
    /// their ordinary paths), and those parked are woken.
    func release() {
        released.store(true, ordering: .releasing)
        wakeAll()
    }

    /// Wakes every parked worker, to look again at why it waits.
    func wakeAll() {
        for w in 0..<workers { stress_baton_pass(batons + w) }
    }
}
