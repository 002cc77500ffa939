@testable import StressCore

/// Every worker asks one once-token for its value as its one operation: the
/// first runs the body (which passes a point of its own), the others wait
/// for it. Under control a waiter may be scheduled at any point of the
/// runner's, its last one included.
struct OnceWaitWorkload: Workload {
    static let descriptor = WorkloadDescriptor(name: "test-once-wait", summary: "workers that wait for one once-token's body")

    final class State: @unchecked Sendable {
        // @unchecked: `value` is written once, by the once-token's body, and
        // read only after the token says it is done.
        let once = StressOnce(name: "once-wait")
        var value = 0
    }

    init(parameters: WorkloadParameters) throws {}

    func makeState(threads: Int) -> State { State() }

    func operations() -> [StressOperation<State>] {
        [StressOperation("ask", weight: 1, steps: [
            .unguarded("ask") { s, _ in
                s.once.run {
                    fuzzPoint()
                    s.value = 7
                }
                return s.value == 7 ? .next : .violation("the once-token returned before its body ran")
            },
        ])]
    }
}
