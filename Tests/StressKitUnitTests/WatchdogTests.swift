import CStressSupport
@testable import StressKit
@testable import StressCore
@testable import StressRunner
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

