@testable import StressBenchCLI
import XCTest

/// How `replay` decides that two reruns failed "with the same first message".
final class ReplayMessageTests: XCTestCase {
    /// Two identical lock-order inversions of locks at different addresses,
    /// reported after different times, are the same failure.
    func testAddressesAndTimesAreMasked() {
        let first = "deadlock: worker 0, worker 1 completed no operation for 203.4ms, each waiting for another of them. "
            + "Wait-for cycle: worker 0 holds the lock at 0x5648a1c0 and waits for the lock at 0x5648a200, held by worker 1"
        let second = "deadlock: worker 0, worker 1 completed no operation for 1.2s, each waiting for another of them. "
            + "Wait-for cycle: worker 0 holds the lock at 0x7f3b0010 and waits for the lock at 0x7F3B0050, held by worker 1"
        XCTAssertEqual(ReplayCommand.comparable(first), ReplayCommand.comparable(second))
        XCTAssertTrue(ReplayCommand.comparable(first).contains("the lock at 0x… and waits for the lock at 0x…"),
                      ReplayCommand.comparable(first))
    }

    /// What tells two failures apart stays: the workers, the words, numbers that are not addresses.
    func testWhatDiffersStaysDifferent() {
        XCTAssertNotEqual(ReplayCommand.comparable("worker 0 holds the lock at 0x10"),
                          ReplayCommand.comparable("worker 1 holds the lock at 0x10"))
        XCTAssertNotEqual(ReplayCommand.comparable("overdraft: the balance is -30"),
                          ReplayCommand.comparable("overdraft: the balance is -40"))
    }
}
