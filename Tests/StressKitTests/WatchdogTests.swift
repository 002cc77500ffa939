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
}
