@testable import StressCore
import XCTest

/// Set histories whose verdicts were worked out by hand.
final class SetHistoryTests: XCTestCase {
    typealias History = [HistoryOperation<SetModel.Operation, Bool>]

    func testInsertingTwiceSucceedsOnce() {
        let sequential: History = [op(0, .insert(1), true, 0, 1), op(1, .insert(1), true, 2, 3)]
        XCTAssertEqual(check(sequential, SetModel()).verdict, .violated)
        let overlapping: History = [op(0, .insert(1), true, 0, 3), op(1, .insert(1), false, 1, 2)]
        let outcome = check(overlapping, SetModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        XCTAssertEqual(outcome.order, [0, 1], "the later-returning insert went first")
    }

    func testContainsCannotSeeAnInsertNotYetCalled() {
        let history: History = [op(0, .contains(1), true, 0, 1), op(1, .insert(1), nil, 5)]
        let outcome = check(history, SetModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.unexplained, [0])
        XCTAssertEqual(outcome.closest, [])
    }

    func testAnOverlappingRemoveMayComeEitherSide() {
        let history: History = [
            op(0, .insert(2), true, 0, 1),
            op(1, .remove(2), true, 2, 6), op(2, .contains(2), true, 3, 4), op(2, .contains(2), false, 5, 7),
        ]
        let outcome = check(history, SetModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        assertWitness(outcome.order, for: history, model: SetModel())
    }

    func testAnElementCannotComeBackWithoutAnInsert() {
        let history: History = [
            op(0, .insert(2), true, 0, 1), op(1, .remove(2), true, 2, 3),
            op(2, .contains(2), true, 4, 5),
        ]
        XCTAssertEqual(check(history, SetModel()).verdict, .violated)
    }

    func testDistinctElementsAreIndependent() {
        let history: History = [
            op(0, .insert(1), true, 0, 4), op(1, .insert(2), true, 1, 3),
            op(0, .contains(2), true, 5, 6), op(1, .contains(1), true, 5, 6), op(2, .remove(3), false, 0, 9),
        ]
        let outcome = check(history, SetModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        assertWitness(outcome.order, for: history, model: SetModel())
    }
}
