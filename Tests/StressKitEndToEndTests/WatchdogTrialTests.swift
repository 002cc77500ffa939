import CStressSupport
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The watchdog on real trials: the harness's own slowness is never a stall,
/// and a stall of some workers while the others go on is one.
final class WatchdogTrialTests: XCTestCase {
    /// Before the fix the watchdog started before the workers existed and
    /// counted one still `starting` as running: 256 workers with a 20 ms limit
    /// were a `hang` 10 times in 10 (the stall clock ran while threads were
    /// created, and while workers waited at the barriers for the coordinator).
    func testManyWorkersAndAShortLimitAreNoFalseAlarm() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: counter
                strategies: [pthread-mutex, spinlock]
                threads: 256
                duration: 100ms
                warmup: 20ms
                repetitions: 2
                deadlock_after: 20ms
            """)
        XCTAssertEqual(report.trials.count, 4, "2 strategies, 2 repetitions")
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        }
    }

    /// Workers 0 and 1 deadlock on two locks while workers 2 and 3 keep
    /// completing operations: before, nothing was reported until the trial's
    /// timeout (the others' progress reset the stall clock).
    func testTwoWorkersDeadlockedWhileOthersProgressIsADeadlockWithItsCycle() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: _fault
                parameters: {mode: partial-lock-order}
                strategies: [pthread-mutex]
                threads: 4
                duration: 30s
                warmup: 0
                deadlock_after: 300ms
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertEqual(stall.kind, .deadlock)
        XCTAssertEqual(stall.cycle?.count, 2, stall.summary)
        XCTAssertTrue(stall.summary.contains("worker 0, worker 1 completed no operation"), stall.summary)
        XCTAssertLessThan(stall.stalledForNanoseconds, 30_000_000_000, "reported by the watchdog, not at the end of the window")
    }

    /// Worker 0 loops for ever outside any lock while the others go on.
    func testOneWorkerLoopingForeverWhileOthersProgressIsAHang() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: _fault
                parameters: {mode: hang, where: outside, after_ops: 100}
                strategies: [pthread-mutex]
                threads: 3
                duration: 30s
                warmup: 0
                deadlock_after: 300ms
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .hang, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertEqual(stall.partial, true)
        XCTAssertTrue(stall.summary.hasPrefix("hang: worker 0 (work/work: running outside any critical section)"), stall.summary)
        XCTAssertTrue(stall.summary.contains("kept using the CPU"), stall.summary)
    }

    /// A writer starved by readers waits without a cycle while the others
    /// progress: starvation, not a stall (glibc's reader-preferring rwlock
    /// under a read-heavy load).
    func testAWaitWithoutACycleWhileOthersProgressIsNoStall() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: counter
                parameters: {read_ratio: 0.99, read_spin: 200}
                strategies: [rwlock]
                threads: 8
                duration: 300ms
                deadlock_after: 20ms
            """)
        XCTAssertEqual(report.trials.count, 1)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        }
    }
}
