@testable import StressCore

/// Two semaphores made with a count of 1, taken in opposite orders by
/// workers 0 and 1 (each signals both once it has both), and signalled by
/// worker 2, who never took either (`third: signals`): when 0 and 1 each
/// hold one and wait for the other's, worker 2's signals end the wait.
/// Treating the last taker as a semaphore's owner would call that a
/// deadlock; it is none (every operation ends, under every schedule). With
/// `third: idle`, worker 2 does nothing, and that cycle is a deadlock. With
/// `third: busy`, worker 2 goes on passing points of its own and never
/// touches the semaphores: the cycle is a deadlock of two while a third
/// goes on, certain only once the trial stops and worker 2 has ended.
struct SemaphoreHandOffWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "test-semaphore-hand-off", summary: "semaphores taken by two workers and signalled by a third",
        parameters: [.choice("third", "what worker 2 does", default: "signals", choices: ["signals", "idle", "busy"])])

    final class State: @unchecked Sendable {
        // @unchecked: the semaphores are thread-safe; nothing else is shared.
        let first = StressSemaphore(value: 1, name: "hand-off.first")
        let second = StressSemaphore(value: 1, name: "hand-off.second")
    }

    let thirdSignals: Bool
    let thirdBusy: Bool
    init(parameters: WorkloadParameters) throws {
        let third = try parameters.text("third")
        (thirdSignals, thirdBusy) = (third == "signals", third == "busy")
    }

    func makeState(threads: Int) -> State { State() }

    func operations() -> [StressOperation<State>] {
        let thirdSignals = self.thirdSignals, thirdBusy = self.thirdBusy
        return [StressOperation("hand-off", weight: 1, steps: [
            .unguarded("call") { s, frame in
                switch frame.thread {
                case 0:
                    s.first.wait()
                    fuzzPoint()
                    s.second.wait()
                    s.second.signal()
                    s.first.signal()
                case 1:
                    s.second.wait()
                    fuzzPoint()
                    s.first.wait()
                    s.first.signal()
                    s.second.signal()
                default:
                    if thirdBusy { fuzzPoint() }
                    guard thirdSignals else { return .next }
                    fuzzPoint()
                    fuzzPoint()
                    s.first.signal()
                    s.second.signal()
                }
                return .next
            },
        ])]
    }
}
