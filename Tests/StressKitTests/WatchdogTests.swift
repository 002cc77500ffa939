import CStressSupport
@testable import StressKit
import XCTest

/// The watchdog's wait-for analysis, on made-up site boards: who holds what,
/// who waits for what, and the cycle a deadlock report prints.
final class WatchdogTests: XCTestCase {
    private func holding(_ r: Int, wanting inner: Int) -> SiteWord {
        SiteWord(site: 0, phase: .acquiringInner, resource: r, inner: inner, write: true)
    }

    func testOppositeLockOrdersMakeATwoWorkerCycle() throws {
        let cycle = try XCTUnwrap(Watchdog.waitForCycle([holding(0, wanting: 1), holding(1, wanting: 0)]))
        XCTAssertEqual(cycle, [
            "worker 0 holds resource 0 and waits for resource 1, held by worker 1",
            "worker 1 holds resource 1 and waits for resource 0, held by worker 0",
        ])
    }

    func testANestedWriteOnTheSameResourceWaitsForItself() throws {
        let cycle = try XCTUnwrap(Watchdog.waitForCycle([holding(0, wanting: 0)]))
        XCTAssertEqual(cycle, ["worker 0 holds resource 0 and waits for resource 0, held by itself"])
    }

    /// Queues that drain on one target: holding resource 0 holds resource 1's
    /// target too, so a nested access to 1 waits for the worker itself.
    func testInOneDomainAnotherResourceIsTheSameOne() throws {
        XCTAssertNil(Watchdog.waitForCycle([holding(0, wanting: 1)]), "separate locks: nobody holds resource 1")
        let cycle = try XCTUnwrap(Watchdog.waitForCycle([holding(0, wanting: 1)], singleDomain: true))
        XCTAssertEqual(cycle, [
            "worker 0 holds resource 0 and waits for resource 1 (every resource drains through one shared domain), held by itself",
        ])
    }

    func testWaitersWithoutAHolderMakeNoCycle() {
        let waiting = SiteWord(site: 0, phase: .acquiring, resource: 0, write: true)
        XCTAssertNil(Watchdog.waitForCycle([waiting, waiting]))
        let reader = SiteWord(site: 0, phase: .inside, resource: 0)
        let readerWaiting = SiteWord(site: 0, phase: .acquiring, resource: 0)
        XCTAssertNil(Watchdog.waitForCycle([reader, readerWaiting]), "readers do not block readers")
    }

    /// The snapshot a loaded run of own-code's `lock-order` took: workers 0
    /// to 2 wait for a signal on a condition while 3 and 5 hold its lock and
    /// the tally's, each wanting the other's. Everyone is stuck for good, and
    /// the walk once went 0 → 1 → 0 along the signal waits, reporting a
    /// "cycle" that named no lock (and, checked again among just those two,
    /// none at all). The lock cycle is the cause and must be the one shown.
    func testTheLockCycleIsShownRatherThanSignalWaitersWaitingForEachOther() throws {
        let conditionLock: UInt64 = 0x1000, tally: UInt64 = 0x2000, condition: UInt64 = 0x3000
        let idle = SiteWord(site: 0, phase: .blocked, resource: 0)
        func signalWaiter() -> ParticipantState {
            ParticipantState(site: idle, completed: 1, waitKey: condition, waitKind: UInt64(STRESS_WAIT_CONDITION))
        }
        func lockWaiter(holding held: UInt64, wanting key: UInt64) -> ParticipantState {
            ParticipantState(site: idle, completed: 1, waitKey: key, waitKind: UInt64(STRESS_WAIT_LOCK), held: [held])
        }
        let states = [signalWaiter(), signalWaiter(), signalWaiter(),
                      lockWaiter(holding: conditionLock, wanting: tally), signalWaiter(),
                      lockWaiter(holding: tally, wanting: conditionLock)]
        let graph = WaitForGraph(states, workers: states.count, singleDomain: false)
        XCTAssertEqual(graph.stuckForGood(), Set(0..<6))
        XCTAssertEqual(graph.firstCycle(), [3, 5])
        XCTAssertEqual(graph.firstCycle(among: [3, 5]), [3, 5], "the cycle stands on its own")
    }
}

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
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        }
    }
}
