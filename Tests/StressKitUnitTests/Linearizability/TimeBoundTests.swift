@testable import StressCore
import XCTest

/// Past its time limit the checker says `unknown`, never a guess.
final class TimeBoundTests: XCTestCase {
    /// 40 overlapping increments and a read, overlapping them all, of a
    /// count no subset gives: before concluding the search must visit every
    /// subset of increments (2^40 memo states), which no limit in a test
    /// allows.
    func adversarialHistory() -> [HistoryOperation<CounterModel.Operation, Int>] {
        var history: [HistoryOperation<CounterModel.Operation, Int>] = (0..<40).map { worker in
            op(worker, .increment, 0, UInt64(worker), 1_000)
        }
        history.append(op(40, .read, -1, 0, 1_000))
        return history
    }

    func testALargeAdversarialHistoryWithATinyLimitIsUnknown() {
        let outcome = LinearizabilityChecker.check(adversarialHistory(), model: CounterModel(), timeLimit: .milliseconds(1))
        XCTAssertEqual(outcome.verdict, .unknown)
        XCTAssertNil(outcome.order)
        XCTAssertNil(outcome.closest)
        XCTAssertEqual(outcome.unexplained, [])
    }

    func testAnUnknownPartMakesTheWholeHistoryUnknown() {
        // Keyed copies of the adversarial history: the first part alone
        // exhausts the limit.
        let history: [HistoryOperation<KeyValueModel.Operation, Int>] =
            (0..<40).map { op($0, .put(0, $0), nil, UInt64($0)) } + [op(40, .get(0), 1_000, 0, 1_000)]
        let outcome = LinearizabilityChecker.check(history, model: KeyValueModel(), timeLimit: .milliseconds(1))
        XCTAssertEqual(outcome.verdict, .unknown)
    }
}
