import StressCore
import Synchronization

/// One round of a race or a model: the user's fresh state, whether a check
/// already failed in it (its final check is then skipped: the round ended
/// there), and, for a model, the threads its body may spawn.
final class RaceRound<State: AnyObject & Sendable>: Sendable {
    let state: State
    /// The spawn slots of a model's round; nil for a race.
    let threads: StressTest.Threads?
    private let failedFlag = Atomic<Bool>(false)

    init(state: State, spawning: Int?) {
        self.state = state
        threads = spawning.map { StressTest.Threads(slots: $0) }
    }

    /// Whether a check failed (or a role threw) in this round.
    var failed: Bool { failedFlag.load(ordering: .acquiring) }

    /// Runs `work`, one role's or spawned thread's part of the round, named
    /// `name` in a violation: a failed ``StressTest/check(_:_:fileID:line:)``
    /// ends it (the check booked its violation), any other error is booked
    /// here; either fails the round.
    func perform(_ name: String, _ work: () throws -> Void) {
        do {
            try work()
        } catch is FailedCheck {
            failedFlag.store(true, ordering: .releasing)
        } catch {
            reportViolation("\(name) threw: \(error)")
            failedFlag.store(true, ordering: .releasing)
        }
    }
}

/// The error a failed ``StressTest/check(_:_:fileID:line:)`` throws to end
/// the closure it is in.
struct FailedCheck: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// One thread a model's body may spawn in a round: worker `number` waits at
/// `started` until the body spawns it (or ends without doing so), runs the
/// closure, and signals `finished`, which a join waits for. Both are
/// harness-aware semaphores, so under control a spawn and a join are
/// scheduling points and a join's wait is modelled: a join that can never
/// return is a deadlock found at once.
final class SpawnSlot: Sendable {
    enum Work {
        case pending
        case spawned(@Sendable () throws -> Void)
        case skipped
    }

    let number: Int
    let started: StressSemaphore
    let finished: StressSemaphore
    private let work = Mutex<Work>(.pending)

    init(number: Int) {
        self.number = number
        started = StressSemaphore(value: 0, name: "spawn thread \(number)")
        finished = StressSemaphore(value: 0, name: "join thread \(number)")
    }

    /// Hands the slot `body` and lets its worker go. False when the slot was
    /// taken or closed already.
    func spawn(_ body: @escaping @Sendable () throws -> Void, file: StaticString, line: UInt) -> Bool {
        let taken = work.withLock { work -> Bool in
            guard case .pending = work else { return false }
            work = .spawned(body)
            return true
        }
        if taken { started.signal(file: file, line: line) }
        return taken
    }

    /// Nobody can spawn this slot any more: its worker has nothing to do
    /// this round.
    func close() {
        let closed = work.withLock { work -> Bool in
            guard case .pending = work else { return false }
            work = .skipped
            return true
        }
        if closed { started.signal() }
    }

    /// The slot's worker: waits for the spawn, runs the closure in `round`,
    /// and lets joins go.
    func run<State>(in round: RaceRound<State>) {
        started.wait()
        guard case .spawned(let body) = work.withLock({ $0 }) else { return }
        round.perform("thread \(number)") { try body() }
        finished.signal()
        round.threads?.ended()
    }

    /// Waits until the spawned closure has returned (as often as asked):
    /// the unit taken is given back on the semaphore underneath, out of the
    /// trace, for another join. Under control that needs no model signal:
    /// the thread's own signal made every joiner waiting then runnable, and
    /// a later joiner finds the unit at once.
    func join(file: StaticString, line: UInt) {
        finished.wait(file: file, line: line)
        finished.underlying.signal()
    }
}
