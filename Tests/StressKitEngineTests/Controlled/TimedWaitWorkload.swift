@testable import StressCore
import Dispatch

/// A client that waits a second for a producer's result and gives up when
/// the wait times out, on two workers (worker 0 the client, worker 1 the
/// producer), for the tests of timeouts the policy chooses:
/// - `correct`: on a timeout, the client closes its request under the same
///   hold of the lock, so a result either arrives before or never;
/// - `drops-late-result`: on a timeout, the client lets the lock go to log
///   the timeout and closes the request afterwards, so a result the producer
///   delivers meanwhile is dropped (a violation);
/// - `early-timeout`: any timeout while the producer still has operations
///   to run is a violation (it shows a wait timed out while another worker
///   could run).
/// The producer works (two scheduling points) before it delivers, so a wait
/// can only time out under it if the policy chooses so.
struct TimedWaitWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "test-timed-wait", summary: "a client's timed wait for a producer's result",
        parameters: [.choice("variant", "what the client does on a timeout", default: "correct",
                             choices: ["correct", "drops-late-result", "early-timeout"]),
                     .integer("producer_ops", "the operations the producer runs (for early-timeout)", default: 20, range: 1...1_000)])

    final class State: @unchecked Sendable {
        // @unchecked: the condition's lock guards every field (and under
        // control one worker runs at a time).
        let condition = StressCondition(name: "timed.result")
        /// The open request's number (0: none), and the last one answered.
        var open = 0
        var answered = 0
        var requests = 0
        var producerOps = 0
    }

    let variant: String
    let producerOps: Int
    init(parameters: WorkloadParameters) throws {
        variant = try parameters.text("variant")
        producerOps = try parameters.integer("producer_ops")
    }

    func makeState(threads: Int) -> State { State() }

    func operations() -> [StressOperation<State>] {
        let variant = self.variant
        let producerOps = self.producerOps
        return [StressOperation("exchange", weight: 1, steps: [
            .unguarded("call") { s, frame in
                frame.thread == 0 ? Self.request(s, variant: variant, producerOps: producerOps) : Self.produce(s)
            },
        ])]
    }

    /// The client: opens a request and waits up to a second for its answer.
    static func request(_ s: State, variant: String, producerOps: Int) -> StepResult {
        s.condition.lock()
        s.requests += 1
        let id = s.requests
        s.open = id
        let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
        var timedOut = false
        while s.answered != id {
            if !s.condition.wait(untilNanoseconds: deadline) {
                timedOut = true
                break
            }
        }
        guard timedOut, s.answered != id else {
            s.open = 0
            s.condition.unlock()
            return .next
        }
        switch variant {
        case "drops-late-result":
            // Logs the timeout with the lock let go, then closes the request
            // without looking again: an answer that came meanwhile is lost.
            s.condition.unlock()
            fuzzPoint()
            s.condition.lock()
            let dropped = s.answered == id
            s.open = 0
            s.condition.unlock()
            return dropped ? .violation("request \(id)'s answer came while its client gave up, and was dropped") : .next
        case "early-timeout":
            let early = s.producerOps < producerOps
            s.open = 0
            s.condition.unlock()
            return early ? .violation("request \(id)'s wait timed out while the producer could still run") : .next
        default:
            s.open = 0
            s.condition.unlock()
            return .next
        }
    }

    /// The producer: works, then answers the open request, if any.
    static func produce(_ s: State) -> StepResult {
        fuzzPoint()
        fuzzPoint()
        s.condition.lock()
        if s.open != 0 {
            s.answered = s.open
            s.condition.signal()
        }
        s.producerOps += 1
        s.condition.unlock()
        return .next
    }
}
