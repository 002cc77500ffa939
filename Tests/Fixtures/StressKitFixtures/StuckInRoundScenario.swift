#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import StressKit
import Synchronization

/// `_stuck-in-round` (hidden; a test fixture): rounds that stop for good in the ways a
/// team's own code stops, for the harness's own tests of when and how the
/// watchdog reports them. Role 0 (`first`) does the harm in its
/// `after_rounds`-th round; role 1 (`second`) takes part as the mode says.
///
/// Modes:
/// - `leaked-lock`: `first` takes a harness-aware lock and ends its round
///   still holding it; `second` takes and gives back the lock every round, so
///   it waits for it for good while `first` waits at the round's barrier.
/// - `condition`: both wait on a harness-aware condition nobody signals.
/// - `unseen-lock`: `first` takes a plain pthread mutex (one the harness does
///   not see: no wrapper, and not interposed unless the plan says so) twice:
///   blocked in the kernel for good; `second` waits at the round's barrier.
/// - `unseen-sleep`: `first` sleeps in the kernel without end.
///
/// With `busy_thread: true` a thread that is not a worker spins beside the
/// trial from its first round on (for at most a minute): something in the
/// process can always run, so the watchdog cannot tell a worker blocked in
/// the kernel from one the OS has not run, and must fall back on its grace
/// and the trial's timeout.
struct StuckInRoundScenario: Scenario {
    static let descriptor = ScenarioDescriptor(
        name: "_stuck-in-round",
        summary: "rounds that stop for good on a lock, a condition or in the kernel: the harness's own test of stall timing",
        parameters: [
            .choice("mode", "how the round stops", default: "leaked-lock",
                    choices: ["leaked-lock", "condition", "unseen-lock", "unseen-sleep"]),
            .integer("after_rounds", "the round (counted from 0) in which it stops", default: 10, range: 0...Int.max),
            .flag("busy_thread", "a thread outside the trial spins all along", default: false),
        ],
        hidden: true
    )

    /// What the roles share across rounds (made once per trial: every
    /// round's state is the same object).
    final class State: Sendable {
        let lock = StressLock(name: "ledger")
        let condition = StressCondition(name: "ready")
        let unseen = UnseenMutex()
        /// Set by nobody: the condition's predicate.
        let ready = Atomic<Bool>(false)
        /// Whether the busy thread was started.
        let busyStarted = Atomic<Bool>(false)
    }

    let mode: String
    let afterRounds: Int
    let busyThread: Bool
    private let state = State()

    init(parameters: WorkloadParameters) throws {
        mode = try parameters.text("mode")
        afterRounds = try parameters.integer("after_rounds")
        busyThread = try parameters.flag("busy_thread")
    }

    func roles() -> [Role<State>] {
        let mode = self.mode, afterRounds = self.afterRounds, busyThread = self.busyThread
        let first: Step<State> = .unguarded("harm") { state, frame in
            if busyThread, !state.busyStarted.exchange(true, ordering: .relaxed) { Self.startBusyThread() }
            guard frame.opNumber == afterRounds else { return .next }
            switch mode {
            case "leaked-lock": state.lock.lock()  // and never gives it back
            case "condition": Self.waitForReady(state)
            case "unseen-lock":
                state.unseen.lock()
                state.unseen.lock()  // a non-recursive mutex: blocked for good
            default:
                while true { sleep(3600) }
            }
            return .next
        }
        let second: Step<State> = .unguarded("take-part") { state, frame in
            switch mode {
            case "leaked-lock": state.lock.withLock {}
            case "condition" where frame.opNumber == afterRounds: Self.waitForReady(state)
            default: break
            }
            return .next
        }
        return [Role("first", steps: [first]), Role("second", steps: [second])]
    }

    /// Waits on the condition for a flag nobody sets.
    private static func waitForReady(_ state: State) {
        state.condition.lock()
        while !state.ready.load(ordering: .relaxed) { state.condition.wait() }
        state.condition.unlock()
    }

    /// A thread of the process that is no worker and always has work: it
    /// spins for a minute (the test's trial ends long before) and ends.
    private static func startBusyThread() {
        let thread = OSThread.spawn {
            let end = MonotonicClock.now() &+ 60_000_000_000
            while MonotonicClock.now() < end { stress_cpu_relax() }
        }
        _ = thread
    }

    /// The same state for every round.
    func makeState() -> State { state }
    /// The same state.
    func reset(_ state: State) -> State { state }
    /// No values: every round that ends is alike.
    func arbiter(_ state: State) -> RoundOutcome { RoundOutcome() }
    /// Every outcome is acceptable: the stall is the point.
    func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }
}
