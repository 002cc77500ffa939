@testable import StressCore
import XCTest

/// The controlled scheduler's bookkeeping that lets a decision skip work:
/// the status board's version, timed waiters and bound, the list of
/// runnable workers kept between decisions, and the decision log's runs.
final class ControlledBookkeepingTests: XCTestCase {
    func testTheBoardCountsChangesOfWhoMayRunTimedWaitersAndItsBound() {
        var board = StatusBoard(count: 11)
        XCTAssertEqual(board.limit, 0)
        board[0] = .runnable
        board[1] = .runnable
        let version = board.version
        XCTAssertEqual(board.limit, 2)
        // Idle and finished slots past the bound leave it where it is.
        board[9] = .idle
        board[10] = .finished
        XCTAssertEqual(board.limit, 2)
        // A change that keeps who may run as it was keeps the version.
        board[1] = .runnable
        board[9] = .finished
        XCTAssertEqual(board.version, version)
        board[1] = .timedWaiting
        XCTAssertNotEqual(board.version, version)
        XCTAssertEqual(board.timedWaiters, 1)
        board[1] = .waiting
        XCTAssertEqual(board.timedWaiters, 0)
        board[5] = .blocked
        XCTAssertEqual(board.limit, 6)
        XCTAssertTrue(board.contains(.blocked))
        XCTAssertFalse(board.contains(.escaped))
    }

    /// Every decision's policy sees the workers runnable at that decision,
    /// in order, and the one that ran longest ago, however the statuses
    /// changed between decisions.
    func testADecisionSeesEveryChangeOfWhoMayRun() {
        final class Seen { var lists: [[Int]] = []; var oldest: [Int] = [] }
        struct Recording: ExecutionScheduler {
            let seen: Seen
            mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int {
                seen.lists.append(runnable)
                seen.oldest.append(oldest)
                return runnable[0]
            }
            mutating func expectLength(_ picks: Int) {}
        }
        let seen = Seen()
        let scheduler = ControlledScheduler(workers: 3, policy: { _ in Recording(seen: seen) }, forced: nil,
                                            maxDecisions: 1_000, onDeadlock: { _, _, _ in })
        scheduler.lockState()
        for w in 0..<3 { scheduler.status[w] = .runnable }
        XCTAssertEqual(scheduler.decide(current: -1), 0)
        XCTAssertEqual(scheduler.decide(current: 0), 0)
        scheduler.status[0] = .blocked
        XCTAssertEqual(scheduler.decide(current: 0), 1)
        scheduler.status[0] = .runnable
        scheduler.status[2] = .finished
        XCTAssertEqual(scheduler.decide(current: 1), 0)
        scheduler.unlockState()
        XCTAssertEqual(seen.lists, [[0, 1, 2], [0, 1, 2], [1, 2], [0, 1]])
        XCTAssertEqual(seen.oldest, [0, 1, 1, 0])
        XCTAssertEqual(scheduler.log.encoded, "w0:2,w1:1,w0:1")
    }

    func testTheLogKeepsRunsOfTheSameWorker() {
        var log = DecisionLog(capacity: 16)
        XCTAssertEqual(log.encoded, "")
        for w in [2, 2, 2, 0, 1, 1, 2] { log.append(w) }
        XCTAssertEqual(log.count, 7)
        XCTAssertEqual(log.encoded, "w2:3,w0:1,w1:2,w2:1")
    }
}
