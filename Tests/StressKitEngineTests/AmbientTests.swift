import CStressSupport
import Dispatch
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A workload whose step calls the free functions code under test uses,
/// `fuzzPoint()` and `reportViolation(_:)`, and touches state confined to a
/// queue, from inside and from outside that queue.
struct AmbientProbeWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "test-ambient-probe", summary: "fuzzPoint, reportViolation and Confined(.queue) from a step",
        parameters: [.flag("off_queue", "touch the confined state outside its queue every tenth op", default: false)])

    final class State: Sendable {
        let queue = StressQueue(label: "probe.queue")
        let confined: Confined<Int>
        init() { confined = Confined(0, to: .queue(queue), name: "the probe's count") }
    }

    let offQueue: Bool
    init(parameters: WorkloadParameters) throws { offQueue = try parameters.flag("off_queue") }

    func makeState(threads: Int) -> State { State() }

    /// The calling worker's ambient fuzzer has passed this many points: its
    /// thread's context, or its task's.
    static func ambientPoints() -> UInt64? {
        if let raw = stress_ambient() { return AmbientContext.at(raw).pointee.fuzzer.index }
        return AmbientContext.inTask()?.pointee.fuzzer.index
    }

    func operations() -> [StressOperation<State>] {
        let offQueue = self.offQueue
        return [StressOperation("probe", weight: 1, steps: [
            .unguarded("call") { state, frame in
                let before = Self.ambientPoints()
                fuzzPoint()
                let after = Self.ambientPoints()
                guard let before, let after, after == before + 1 else {
                    return .violation("fuzzPoint() did not reach the worker's fuzzer: \(String(describing: before)) → \(String(describing: after))")
                }
                if offQueue {
                    state.queue.sync { state.confined.value += 1 }  // on its queue: fine
                    if frame.opNumber % 10 == 9 { _ = state.confined.value }  // off it: one access (a read: no race)
                } else if frame.opNumber % 10 == 9 {
                    _ = reportViolation("reported at op \(frame.opNumber)")
                }
                return .next
            },
        ])]
    }
}

/// What code under test calls from anywhere, on thread workers and on task
/// workers: `fuzzPoint()` reaches the worker's own fuzzer, `reportViolation`
/// books a violation where the worker is, and `Confined(.queue)` tells its
/// queue's blocks from everything else.
final class AmbientTests: XCTestCase {
    private func run(offQueue: Bool, strategies: [String]) throws -> RunReport {
        var registry = StressRegistry.builtIn
        registry.register(workload: AmbientProbeWorkload.self)
        return try PlanRunner.run(yaml: """
            experiments:
              - workload: test-ambient-probe
                parameters: { off_queue: \(offQueue) }
                strategies: [\(strategies.joined(separator: ", "))]
                threads: 2
                ops: 200
                warmup: 0s
                fuzz: light
            """, file: "test.yaml", registry: registry)
    }

    func testFuzzPointAndReportViolationReachTheWorkerOnThreadsAndInTasks() throws {
        let report = try run(offQueue: false, strategies: ["pthread-mutex", "actor"])
        XCTAssertEqual(report.trials.map(\.trial.strategy), ["pthread-mutex", "actor"])
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .violated, WorkloadTestSupport.describe(trial))
            XCTAssertEqual(trial.violations.count, 2 * 20, "every tenth op of each worker reports one: \(trial.trial.id)")
            for sample in trial.violations.samples {
                XCTAssertTrue(sample.message.hasPrefix("reported at op "), "\(trial.trial.id): \(sample.message)")
                XCTAssertEqual(sample.operation, "probe")
                XCTAssertEqual(sample.step, "call")
            }
        }
    }

    /// On thread workers every access outside the queue's blocks is one
    /// violation. A task hops threads and its queue blocks run unseen, so
    /// there the check lets every access through rather than raise a false
    /// alarm (docs/own-code.md, Limits).
    func testStateConfinedToAQueueIsAViolationOnlyOutsideItsBlocks() throws {
        let report = try run(offQueue: true, strategies: ["pthread-mutex", "actor"])
        let threads = try XCTUnwrap(report.trials.first { $0.trial.strategy == "pthread-mutex" })
        XCTAssertEqual(threads.violations.count, 2 * 20, "only the tenth ops' access outside the queue")
        let first = try XCTUnwrap(threads.violations.samples.first)
        XCTAssertEqual(first.message, "confinement: the probe's count was touched from another thread, not from the queue 'probe.queue'")
        XCTAssertEqual(first.operation, "probe")
        let tasks = try XCTUnwrap(report.trials.first { $0.trial.strategy == "actor" })
        XCTAssertEqual(tasks.outcome, .passed, WorkloadTestSupport.describe(tasks))
    }
}
