import CStressSupport
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitFixtures
import Synchronization
import XCTest

/// When the watchdog reports a stall, and what it can say of it: the
/// wait-for graph through the round's barrier, the kernel's view of a thread
/// the harness cannot see into, and the rule the plan and command-line checks
/// share with the watchdog (docs/running.md, "When a stall is reported").
final class StallTimingRuleTests: XCTestCase {
    /// A role that ends its round holding a lock: the next role waits for the
    /// lock, the holder waits at the round's barrier for it. Before, a
    /// barrier wait was no edge, and the report named no cause.
    func testARoleThatEndsItsRoundHoldingALockIsInACycleThroughTheBarrier() throws {
        let lock: UInt64 = 0x1000
        PrimitiveNames.register(lock, "the lock 'ledger'")
        defer { PrimitiveNames.unregister(lock) }
        let states = [
            ParticipantState(site: SiteWord(site: -1, phase: .atBarrier), completed: 10, held: [lock]),
            ParticipantState(site: SiteWord(site: 1, phase: .blocked), completed: 10, waitKey: lock, waitKind: UInt64(STRESS_WAIT_LOCK)),
        ]
        let graph = WaitForGraph(states, workers: 2, singleDomain: false, rounds: true)
        XCTAssertEqual(graph.stuckForGood(), [0, 1])
        let cycle = try XCTUnwrap(graph.firstCycle())
        XCTAssertEqual(graph.describe(cycle), [
            "worker 0 holds the lock 'ledger' and waits at the round's barrier for worker 1",
            "worker 1 waits for the lock 'ledger', held by worker 0",
        ])
    }

    /// A worker at a barrier waits for the workers that have not reached it:
    /// while one of them runs, nobody is stuck.
    func testABarrierWaiterIsNotStuckWhileAWorkerItWaitsForRuns() {
        let states = [
            ParticipantState(site: SiteWord(site: -1, phase: .atBarrier), completed: 3),
            ParticipantState(site: SiteWord(site: 0, phase: .running), completed: 3),
            ParticipantState(site: SiteWord(site: -1, phase: .finished), completed: 3),
        ]
        XCTAssertEqual(WaitForGraph(states, workers: 3, singleDomain: false).stuckForGood(), [])
    }

    /// The workers waiting behind one that runs without end (for the lock it
    /// holds, or at the barrier for it) did not "go on": a stall of them all
    /// is not partial.
    func testWorkersWaitingBehindAWorkerThatNeverEndsAreStuckWithIt() {
        let states = [
            ParticipantState(site: SiteWord(site: 0, phase: .inside, resource: 0, write: true), completed: 5),
            ParticipantState(site: SiteWord(site: 0, phase: .acquiring, resource: 0, write: true), completed: 5),
            ParticipantState(site: SiteWord(site: -1, phase: .atBarrier), completed: 5),
            ParticipantState(site: SiteWord(site: 1, phase: .running), completed: 5),
        ]
        let graph = WaitForGraph(states, workers: 4, singleDomain: false)
        XCTAssertEqual(graph.stuckForGood(), [], "nothing waits for good by itself")
        XCTAssertEqual(graph.stuckForGood(assuming: [0]), [0, 1, 2], "the barrier waits for worker 0 too, whatever worker 3 does")
        XCTAssertEqual(graph.stuckForGood(assuming: [3]), [2, 3], "the lock's waiter waits for worker 0, which runs")
    }

    func testTheFuzzersLongestPauseIsTheLongestOfTheKindsInUse() {
        XCTAssertNil(FuzzSettings(.off).longestPause)
        let chaos = FuzzSettings(.chaos).longestPause
        XCTAssertEqual(chaos?.ns, 5_000_000)
        XCTAssertEqual(chaos?.key, "starve_max")
        XCTAssertEqual(FuzzSettings(.portfolio).longestPause?.ns, 5_000_000, "the longest of the profiles it rotates through")
        XCTAssertEqual(FuzzSettings(.light).longestPause?.key, "spin_max")
        var tuned = FuzzSettings(.chaos)
        tuned.sleepMaxNanoseconds = 40_000_000
        XCTAssertEqual(tuned.longestPause?.key, "sleep_max")
    }

    func testTheWatchdogReportsBeforeTheTimeoutByASecondOrAQuarterOfIt() {
        XCTAssertEqual(WatchdogTiming.graceNs(stallAfterNs: 200_000_000), 2_000_000_000)
        XCTAssertEqual(WatchdogTiming.graceNs(stallAfterNs: 500_000_000), 5_000_000_000)
        XCTAssertEqual(WatchdogTiming.graceNs(stallAfterNs: .max), .max, "no overflow")
        XCTAssertEqual(WatchdogTiming.reportMarginNs(timeoutNs: 12_100_000_000), 1_000_000_000)
        XCTAssertEqual(WatchdogTiming.reportMarginNs(timeoutNs: 2_000_000_000), 500_000_000)
        XCTAssertTrue(WatchdogTiming.fits(stallAfterNs: 2_000_000_000, timeoutNs: 12_100_000_000))
        XCTAssertTrue(WatchdogTiming.fits(stallAfterNs: 5_000_000_000, timeoutNs: 6_000_000_000))
        XCTAssertFalse(WatchdogTiming.fits(stallAfterNs: 1_800_000_000, timeoutNs: 2_000_000_000))
    }

    /// A thread blocked on a mutex another thread holds is asleep on a
    /// futex; this one, reading, runs.
    func testTheKernelTellsAThreadBlockedOnAMutexFromOneThatRuns() throws {
        #if os(Linux)
        let mutex = UnseenMutex()
        mutex.lock()
        let blockedID = ThreadIDBox()
        let thread = try XCTUnwrap(OSThread.spawn {
            blockedID.id.store(stress_thread_id(), ordering: .relaxed)
            mutex.lock()
            mutex.unlock()
        })
        defer {
            mutex.unlock()
            thread.join()
        }
        XCTAssertEqual(KernelThreads.state(of: stress_thread_id())?.state, "R", "the reading thread runs")
        // The thread gets to the lock when the OS runs it: a loaded machine
        // may take a while.
        var seen: KernelWaitState?
        let deadline = MonotonicClock.now() + 30_000_000_000
        while MonotonicClock.now() < deadline {
            let id = blockedID.id.load(ordering: .relaxed)
            if id != 0, let state = KernelThreads.state(of: id), state.isAsleep, state.systemCall == "futex" {
                seen = state
                break
            }
            MonotonicClock.sleep(nanoseconds: 1_000_000)
        }
        let state = try XCTUnwrap(seen, "the blocked thread was never seen asleep on its futex")
        XCTAssertTrue(state.waitsForAnotherThread)
        XCTAssertTrue(state.words.hasPrefix("blocked in the kernel on a futex"), state.words)
        XCTAssertNil(KernelThreads.state(of: 0))
        #else
        throw XCTSkip("the kernel's view of a thread is read on Linux only")
        #endif
    }
}

/// The kernel id of the test's blocked thread, which it stores itself.
private final class ThreadIDBox: Sendable {
    let id = Atomic<UInt64>(0)
}
