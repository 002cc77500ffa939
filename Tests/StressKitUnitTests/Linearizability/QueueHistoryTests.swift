@testable import StressCore
import XCTest

/// FIFO queue histories whose verdicts were worked out by hand.
final class QueueHistoryTests: XCTestCase {
    typealias History = [HistoryOperation<QueueModel.Operation, Int>]

    func testSequentialFIFOIsLinearizable() {
        let history: History = [
            op(0, .enqueue(1), 0, 0, 1), op(0, .enqueue(2), 0, 2, 3),
            op(1, .dequeue, 1, 4, 5), op(1, .dequeue, 2, 6, 7), op(1, .dequeue, -1, 8, 9),
        ]
        let outcome = check(history, QueueModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [0, 1, 2, 3, 4])
    }

    func testDequeueingOutOfOrderIsAViolation() {
        let history: History = [op(0, .enqueue(1), 0, 0, 1), op(0, .enqueue(2), 0, 2, 3), op(1, .dequeue, 2, 4, 5)]
        let outcome = check(history, QueueModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.unexplained, [2])
        XCTAssertEqual(outcome.closest, [0, 1])
        XCTAssertEqual(outcome.closestState, QueueModel(items: [1, 2]))
    }

    func testOverlappingEnqueuesMayLandInEitherOrder() {
        let history: History = [
            op(0, .enqueue(1), 0, 0, 3), op(1, .enqueue(2), 0, 1, 4),
            op(2, .dequeue, 2, 5, 6), op(2, .dequeue, 1, 7, 8),
        ]
        let outcome = check(history, QueueModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [1, 0, 2, 3])
    }

    func testAnElementDequeuedTwiceIsAViolation() {
        let history: History = [op(0, .enqueue(1), 0, 0, 1), op(1, .dequeue, 1, 2, 5), op(2, .dequeue, 1, 3, 6)]
        let outcome = check(history, QueueModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.closest?.count, 2, "enqueue and one of the dequeues")
        XCTAssertEqual(outcome.unexplained.count, 1, "the other dequeue")
        XCTAssertTrue([1, 2].contains(outcome.unexplained.first ?? 0))
        XCTAssertFalse(outcome.closest?.contains(outcome.unexplained.first ?? 0) ?? true)
    }

    func testADequeueOverlappingTheEnqueueMayFindTheQueueEmpty() {
        let history: History = [op(0, .enqueue(1), 0, 0, 5), op(1, .dequeue, -1, 1, 2), op(1, .dequeue, 1, 6, 7)]
        XCTAssertEqual(check(history, QueueModel()).verdict, .linearizable)
    }

    func testEmptyAfterAnEnqueueReturnedIsAViolation() {
        let history: History = [op(0, .enqueue(1), 0, 0, 1), op(1, .dequeue, -1, 2, 3)]
        XCTAssertEqual(check(history, QueueModel()).verdict, .violated)
    }

    func testALostElementIsAViolation() {
        // Two enqueues returned, then two dequeues in a row, the second finding nothing.
        let history: History = [
            op(0, .enqueue(1), 0, 0, 1), op(1, .enqueue(2), 0, 0, 2),
            op(0, .dequeue, 1, 3, 4), op(0, .dequeue, -1, 5, 6),
        ]
        XCTAssertEqual(check(history, QueueModel()).verdict, .violated)
    }

    func testAPendingDequeueMayHaveTakenAnElement() {
        let history: History = [
            op(0, .enqueue(1), 0, 0, 1), op(0, .enqueue(2), 0, 2, 3),
            op(1, .dequeue, nil, 4), op(2, .dequeue, 2, 5, 6),
        ]
        let outcome = check(history, QueueModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [0, 1, 2, 3])
    }

    func testAPendingEnqueueExplainsAnElementNobodyElseEnqueued() {
        let history: History = [op(0, .enqueue(7), nil, 0), op(1, .dequeue, 7, 1, 2)]
        XCTAssertEqual(check(history, QueueModel()).verdict, .linearizable)
        let unexplained: History = [op(0, .enqueue(7), nil, 0), op(1, .dequeue, 8, 1, 2)]
        XCTAssertEqual(check(unexplained, QueueModel()).unexplained, [1])
    }
}
