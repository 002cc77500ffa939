import Foundation
import StressKitTesting

/// A workload that says which process ran it: a counter under the strategy,
/// plus a `pid` metric. In-process trials report the test's own process id;
/// isolated ones another, which is how the tests see a child process ran them.
package struct ProcessProbeWorkload: Workload {
    package static let descriptor = WorkloadDescriptor(
        name: "process-probe",
        summary: "a guarded counter that reports the id of the process it ran in",
        parameters: []
    )

    /// `@unchecked Sendable`: the strategy under test guards `count`.
    package final class State: @unchecked Sendable {
        var count = 0
    }

    package init(parameters: WorkloadParameters) throws {}

    package func makeState(threads: Int) -> State { State() }

    package func operations() -> [WorkloadOperation] {
        [WorkloadOperation("bump", weight: 1, steps: [.write("add") { state, _ in
            state.count += 1
            return .next
        }])]
    }

    package func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        state.count == totals.count(of: "bump") ? [] : ["count \(state.count) after \(totals.count(of: "bump")) bumps"]
    }

    package func metrics(_ state: State) -> [String: Double] { ["pid": Double(getpid())] }
}

package enum StressTestFixtures {
    /// A bug the harness must find every time: the counter's lost update
    /// (`split-rmw`: the load and the store in two critical sections) with
    /// no synchronization at all, two workers, and `yield` fuzzing (a
    /// `sched_yield` at 10% of the fuzz points, between the load and the
    /// store among them). The trial ends at the first violation, so the 5 s
    /// budget is spent only if the checks go blind.
    ///
    /// Measured (docs/benchmarks/detection-rates-stresstest-2026-11-25.txt,
    /// debug build as the tests run it): found in every one of 100 seeds on
    /// a busy machine, the first violation after 29 ms at the median and
    /// 109 ms at most, against this 5 s window.
    package static var lostUpdate: StressTest {
        StressTest(workload: "counter", parameters: ["variant": "split-rmw"])
            .strategies("unsynchronized")
            .threads(2)
            .duration(.seconds(5))
            .warmup(.zero)
            .fuzz(.yield)
            .stopOnViolation()
            .seed(4)
    }

    /// Set in a child run of the test binary to make the reporting fixtures
    /// fail on purpose (they do nothing otherwise).
    package static let reportingVariable = "STRESSKIT_TESTS_REPORTING_FIXTURE"

    package static var runsReportingFixture: Bool { ProcessInfo.processInfo.environment[reportingVariable] == "1" }

    /// Runs this test binary again with `arguments` and the reporting
    /// fixtures on: what a test library prints for a failing stress test.
    package static func runTestBinary(_ arguments: [String]) throws -> (termination: ChildTermination, output: String) {
        let capture = try ChildProcess.run(
            executable: TrialIsolation.currentExecutablePath, arguments: arguments,
            environment: [reportingVariable: "1"], input: [], timeoutNs: 300_000_000_000
        )
        return (capture.termination, String(decoding: capture.outputTail, as: UTF8.self))
    }

    /// ``runTestBinary(_:)`` waiting on a thread of its own, for `async` tests.
    package static func runTestBinary(_ arguments: [String]) async throws -> (termination: ChildTermination, output: String) {
        let result = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { () throws in try runTestBinary(arguments) }) }.start()
        }
        return try result.get()
    }
}
