/// `operation-start-cancel`: an `NSOperation`-style state machine (ready →
/// executing → finished) whose `start` races its `cancel`, once per round:
/// the shape of a run-loop operation (QRunLoopOperation in the seeds) that
/// starts, does its work on a callback outside its lock, and finishes.
///
/// Its promises: it finishes exactly once, and once it has reported finished
/// its work never runs. The outcome is `finishes, work ran after finished`;
/// `1, 0` is the only acceptable one.
///
/// Variants:
/// - `correct`: `cancel` only marks the operation cancelled; whoever runs it
///   (start, or the work's completion) finishes it, once, under the lock,
///   and the work checks the mark under the lock before it runs.
/// - `cancel-finishes`: `cancel` finishes an executing operation itself, and
///   the completion finishes it too without checking: it finishes twice, or
///   its work runs after it reported finished (the seeds' bug).
package struct OperationStartCancelScenario: Scenario {
    public static let descriptor = ScenarioDescriptor(
        name: "operation-start-cancel",
        summary: "an NSOperation-style state machine's start races its cancel: it finishes exactly once, no work after finished. Outcome finishes, work-after-finish",
        parameters: [.choice("variant", "correct, or the bug: cancel-finishes", default: "correct", choices: ["correct", "cancel-finishes"])]
    )

    /// The state machine and what happened to it in one round. `@unchecked
    /// Sendable`: the strategy under test guards it; the arbiter reads it after
    /// the round barrier.
    public final class State: @unchecked Sendable {
        static let ready = 0, executing = 1, finished = 2
        var phase = State.ready
        var cancelled = false
        var finishes = 0
        var workAfterFinish = 0

        func finish() {
            phase = State.finished
            finishes += 1
        }
    }

    let cancelFinishes: Bool

    public init(parameters: WorkloadParameters) throws {
        cancelFinishes = try parameters.text("variant") == "cancel-finishes"
    }

    public func roles() -> [Role<State>] {
        let buggy = cancelFinishes
        let start = Role<State>("start", steps: [
            .write("begin") { s, _ in
                guard s.phase == State.ready else { return .finish }
                if s.cancelled {
                    // Cancelled before it started: it finishes without working.
                    s.finish()
                    return .finish
                }
                s.phase = State.executing
                return .next
            },
            .write("check-cancel") { s, frame in
                // The work runs outside the lock (a run-loop callback); it is
                // allowed only if the operation is still executing and not cancelled.
                frame.r0 = s.phase == State.executing && (buggy || !s.cancelled) ? 1 : 0
                return .next
            },
            .unguarded("work") { s, frame in
                guard frame.r0 == 1 else { return .next }
                // A real callback would do its work here; what matters is
                // whether the operation already said it was done.
                frame.fuzzPoint()
                if s.phase == State.finished { s.workAfterFinish = 1 }
                return .next
            },
            .write("complete") { s, _ in
                if buggy || s.phase != State.finished { s.finish() }
                return .next
            },
        ])
        let cancel = Role<State>("cancel", steps: [
            .write("cancel") { s, _ in
                s.cancelled = true
                if buggy && s.phase == State.executing { s.finish() }
                return .next
            },
        ])
        return [start, cancel]
    }

    public func makeState() -> State { State() }

    public func reset(_ s: State) -> State {
        s.phase = State.ready
        s.cancelled = false
        s.finishes = 0
        s.workAfterFinish = 0
        return s
    }

    public func arbiter(_ s: State) -> RoundOutcome { RoundOutcome(s.finishes, s.workAfterFinish) }

    public func grade(_ outcome: RoundOutcome) -> OutcomeGrade {
        if outcome[0] != 1 {
            return .forbidden(outcome[0] == 0 ? "the operation never finished" : "the operation finished \(outcome[0]) times")
        }
        if outcome[1] != 0 { return .forbidden("the operation's work ran after it reported finished") }
        return .acceptable
    }
}
