@testable import StressCore
import XCTest

/// Register histories whose verdicts were worked out by hand.
final class RegisterHistoryTests: XCTestCase {
    typealias History = [HistoryOperation<RegisterModel.Operation, Int>]

    func testAnEmptyHistoryIsLinearizable() {
        let outcome = check([] as History, RegisterModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [])
    }

    func testASequentialHistoryIsItsOwnWitness() {
        let history: History = [op(0, .write(1), 0, 0, 1), op(1, .read, 1, 2, 3), op(0, .write(2), 0, 4, 5), op(1, .read, 2, 6, 7)]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [0, 1, 2, 3])
    }

    func testAReadAfterAWriteReturnedCannotSeeTheOldValue() {
        let history: History = [op(0, .write(1), 0, 0, 1), op(1, .read, 0, 2, 3)]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.closest, [0])
        XCTAssertEqual(outcome.closestState, RegisterModel(value: 1))
        XCTAssertEqual(outcome.unexplained, [1])
        XCTAssertNil(outcome.order)
    }

    func testAReadOverlappingAWriteMaySeeEitherValue() {
        for seen in [0, 1] {
            let history: History = [op(0, .write(1), 0, 0, 3), op(1, .read, seen, 1, 2)]
            let outcome = check(history, RegisterModel())
            XCTAssertEqual(outcome.verdict, .linearizable, "read \(seen)")
            assertWitness(outcome.order, for: history, model: RegisterModel())
        }
    }

    func testAnOperationReturningAtTheInstantAnotherIsCalledOverlapsIt() {
        // Precedes means returned strictly before the call: equal readings overlap.
        let history: History = [op(0, .write(1), 0, 0, 2), op(1, .read, 0, 2, 3)]
        XCTAssertEqual(check(history, RegisterModel()).verdict, .linearizable)
    }

    func testOnceAReadSawTheNewValueALaterReadCannotSeeTheOld() {
        // The write spans both reads, but the reads are ordered: new then old.
        let history: History = [op(0, .write(1), 0, 0, 10), op(1, .read, 1, 1, 2), op(1, .read, 0, 3, 4)]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.unexplained, [2])
        XCTAssertEqual(outcome.closest, [0, 1])
    }

    func testConcurrentWritesLinearizeInTheOrderTheReadsSaw() {
        let history: History = [
            op(0, .write(1), 0, 0, 5), op(1, .write(2), 0, 1, 6),
            op(2, .read, 2, 7, 8), op(2, .read, 2, 9, 10),
        ]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order?.prefix(2), [0, 1])
        assertWitness(outcome.order, for: history, model: RegisterModel())
    }

    func testCompareAndSetSucceedsOnlyOnce() {
        // Two overlapping compare-and-sets from 0 both report success.
        let history: History = [op(0, .compareAndSet(0, 1), 1, 0, 3), op(1, .compareAndSet(0, 2), 1, 1, 2)]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.unexplained.count, 1, "each success alone is explained; the second is not")
    }

    func testAPendingWriteMayTakeEffect() {
        let history: History = [op(0, .write(1), nil, 0), op(1, .read, 1, 1, 2)]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [0, 1])
    }

    func testAPendingWriteMayBeLeftOut() {
        let history: History = [op(0, .write(1), nil, 0), op(1, .read, 0, 1, 2), op(1, .read, 0, 3, 4)]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [1, 2], "the pending write is left out")
    }

    func testAPendingWriteTakesEffectOnlyAfterItsCall() {
        let history: History = [op(1, .read, 1, 0, 1), op(0, .write(1), nil, 2)]
        let outcome = check(history, RegisterModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.unexplained, [0])
    }

    func testAPendingWriteTakesEffectAtMostOnce() {
        // Seen, then unseen, then seen again: the write would have to happen twice.
        let history: History = [
            op(0, .write(1), nil, 0), op(1, .read, 1, 1, 2), op(1, .write(0), 0, 3, 4), op(1, .read, 1, 5, 6),
        ]
        XCTAssertEqual(check(history, RegisterModel()).verdict, .violated)
    }

    func testTheSequentialPartsBeforeAndAfterAreOrderedToo() {
        // Worker -1 is the sequential prefix and suffix; only the clock matters.
        let history: History = [
            op(-1, .write(5), 0, 0, 1),
            op(0, .read, 5, 2, 5), op(1, .write(6), 0, 3, 4),
            op(-1, .read, 5, 6, 7),
        ]
        XCTAssertEqual(check(history, RegisterModel()).verdict, .violated, "the write returned before the final read")
    }

    func testAReturnRecordedBeforeItsCallIsReadAsInstantaneous() {
        let history: History = [op(0, .write(1), 0, 5, 3), op(1, .read, 1, 6, 7)]
        XCTAssertEqual(check(history, RegisterModel()).verdict, .linearizable)
    }
}
