import Foundation

/// `_busywork` (hidden): a counter whose every increment first does `work`
/// rounds of arithmetic inside the critical section. A knob for the harness's
/// own measurements: the cost of an operation is set by a number, so the CI
/// gate's calibration can make one side do a known amount more work per op.
///
/// The environment variable `STRESSBENCH_BUSYWORK_EXTRA_PERCENT` (an integer,
/// default 0) adds that percentage of rounds without changing the plan: it
/// stands for a code change that makes each operation slower, which is what a
/// baseline comparison must catch (a changed plan parameter would make the
/// cells different, not slower).
package struct BusyWorkWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "_busywork",
        summary: "calibration: a counter whose increments spin `work` rounds inside the critical section",
        parameters: [
            .integer("work", "rounds of arithmetic per operation, inside the critical section", default: 1_000, range: 0...10_000_000),
        ],
        hidden: true
    )

    /// The environment variable that adds a percentage of rounds.
    public static let extraPercentVariable = "STRESSBENCH_BUSYWORK_EXTRA_PERCENT"

    /// The count of increments and the arithmetic's running result (kept so the
    /// compiler cannot drop the work). Public for the calibration builds of
    /// `stressbench ab` (Examples/ABCalibration), whose workload is this one
    /// with other arithmetic.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test guards both words.
        /// Increments done.
        public let count = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        /// The arithmetic's running result.
        public let sink = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)

        /// A count of 0 and a non-zero seed for the arithmetic.
        public init() {
            count.initialize(to: 0)
            sink.initialize(to: 0x9E37_79B9_7F4A_7C15)
        }

        deinit {
            count.deallocate()
            sink.deallocate()
        }
    }

    /// Rounds per operation, the extra percentage included.
    let rounds: Int

    public init(parameters: WorkloadParameters) throws {
        let work = try parameters.integer("work")
        let extra = ProcessInfo.processInfo.environment[Self.extraPercentVariable].flatMap { Int($0) } ?? 0
        rounds = work * (100 + Swift.max(extra, -100)) / 100
    }

    public func makeState(threads: Int) -> State { State() }

    public func operations() -> [StressOperation<State>] {
        let rounds = self.rounds
        return [
            StressOperation("work", weight: 1, steps: [
                .write("spin and increment") { state, _ in
                    // xorshift64: each round depends on the last, so the rounds
                    // cannot be folded or vectorised away.
                    var x = state.sink.pointee
                    for _ in 0..<rounds {
                        x ^= x << 13
                        x ^= x >> 7
                        x ^= x << 17
                    }
                    state.sink.pointee = x
                    state.count.pointee += 1
                    return .next
                },
            ]),
        ]
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        Self.countCheck(state, totals)
    }

    /// The invariant of a counter whose only operation, `work`, increments
    /// it once: the count equals the operations done.
    public static func countCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let expected = totals.count(of: "work"), actual = state.count.pointee
        return actual == expected ? [] : ["final count \(actual) != \(expected) operations done (\(expected - actual) lost)"]
    }
}
