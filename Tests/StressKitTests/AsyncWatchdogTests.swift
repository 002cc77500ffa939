import Foundation
@testable import StressKit
import XCTest

/// The task-aware watchdog (docs/async.md): a job that never returns to the
/// executor is a hang; tasks that can never finish are a deadlock. Each
/// trial runs in a process of its own, stalled on purpose.
final class AsyncWatchdogTests: XCTestCase {
    /// One `_fault` trial of three workers in its own process, stalled on
    /// purpose: the watchdog must end it long before its 30 s window.
    private func stalledTrial(_ parameters: String, executor: String) throws -> TrialResult {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: _fault
                parameters: {\(parameters)}
                strategies: [unsynchronized]
                threads: [3]
                duration: 30s
                warmup: 0
                deadlock_after: 300ms
                executor: \(executor)
            """)
        return try XCTUnwrap(report.trials.first)
    }

    /// A job that never returns to the executor (a loop between two awaits)
    /// is a hang, named as such, on the parallel and the deterministic executor.
    func testAJobThatNeverReturnsToTheExecutorIsAHang() throws {
        for executor in ["harness", "deterministic"] {
            let trial = try stalledTrial("mode: hang, where: await, after_ops: 50", executor: executor)
            XCTAssertEqual(trial.outcome, .hang, "\(executor): " + WorkloadTestSupport.describe(trial))
            let stall = try XCTUnwrap(trial.stall)
            XCTAssertTrue(stall.summary.contains("worker 0"), stall.summary)
            XCTAssertLessThan(stall.stalledForNs, 30_000_000_000, "reported by the watchdog, not at the end of the window")
            if executor == "harness" {
                XCTAssertTrue(stall.summary.contains("without returning to the executor"), stall.summary)
            }
        }
    }

    /// Tasks that can never finish, with no continuation in sight: each
    /// worker awaiting a task that awaits its own value, and every worker
    /// awaiting one of two tasks that await each other. Every worker is
    /// suspended with nothing of its own queued, running or sleeping: a
    /// deadlock, on both harness executors, naming each worker's await.
    func testTasksAwaitingThemselvesOrEachOtherAreADeadlock() throws {
        for mode in ["await-self", "await-cycle"] {
            for executor in ["harness", "deterministic"] {
                let trial = try stalledTrial("mode: \(mode), after_ops: 20", executor: executor)
                XCTAssertEqual(trial.outcome, .deadlock, "\(mode), \(executor): " + WorkloadTestSupport.describe(trial))
                let stall = try XCTUnwrap(trial.stall, "\(mode), \(executor)")
                XCTAssertTrue(stall.summary.contains("suspended in an await"), "\(mode), \(executor): \(stall.summary)")
                XCTAssertEqual(stall.workers.count, 3, "\(mode), \(executor): \(stall.workers)")
                XCTAssertTrue(stall.workers.allSatisfy { $0.description.hasPrefix("work/await: suspended in an await") },
                              "\(mode), \(executor): \(stall.workers)")
                XCTAssertLessThan(stall.stalledForNs, 30_000_000_000, "reported by the watchdog, not at the end of the window")
            }
        }
    }
}
