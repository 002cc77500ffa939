@testable import StressCore
import XCTest

/// A key-value store checked one key at a time (P-compositionality).
final class PartitionedHistoryTests: XCTestCase {
    typealias History = [HistoryOperation<KeyValueModel.Operation, Int>]

    /// `keys` keys, `rounds` rounds in which `workers` workers each do one
    /// operation, all of a round's operations overlapping, applied to a real
    /// store in a shuffled order within the round: linearizable by
    /// construction.
    func linearizableHistory(keys: Int, workers: Int, rounds: Int, seed: UInt64) -> History {
        var generator = SplitMix64(seed: seed)
        var store = KeyValueModel()
        var history: History = []
        var clock: UInt64 = 0
        for _ in 0..<rounds {
            let start = clock
            clock += UInt64(workers) + 1
            var round: [(worker: Int, operation: KeyValueModel.Operation)] = (0..<workers).map { worker in
                let key = Int(generator.next() % UInt64(keys))
                let operation: KeyValueModel.Operation = generator.next() % 2 == 0
                    ? .get(key) : .put(key, Int(generator.next() % 5))
                return (worker, operation)
            }
            round.shuffle(using: &generator)
            for (position, entry) in round.enumerated() {
                let result = store.apply(entry.operation)
                history.append(op(entry.worker, entry.operation, result, start + UInt64(position), clock))
            }
            clock += 1
        }
        return history
    }

    func testEachKeyIsAPart() {
        let history: History = [op(0, .put(1, 5), -1, 0, 1), op(1, .get(2), -1, 0, 1), op(0, .get(1), 5, 2, 3)]
        XCTAssertEqual(LinearizabilityChecker.parts(of: history, model: KeyValueModel.self), [[0, 2], [1]])
        XCTAssertEqual(LinearizabilityChecker.parts(of: history, model: UnpartitionedKeyValueModel.self), [[0, 1, 2]])
    }

    func testAManyKeyHistoryIsLinearizableWithAWitnessAcrossKeys() {
        let history = linearizableHistory(keys: 10, workers: 4, rounds: 100, seed: 7)
        let outcome = check(history, KeyValueModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        assertWitness(outcome.order, for: history, model: KeyValueModel())
    }

    func testPartitionedAndWholeSearchesAgree() {
        for seed in 0..<20 as Range<UInt64> {
            var history = linearizableHistory(keys: 3, workers: 3, rounds: 6, seed: seed)
            if seed % 2 == 1 {
                // Break one get: it now reports a value nobody put.
                let index = history.firstIndex { if case .get = $0.operation { true } else { false } } ?? 0
                history[index].result = 99
            }
            let partitioned = check(history, KeyValueModel())
            let whole = check(history, UnpartitionedKeyValueModel())
            XCTAssertEqual(partitioned.verdict, whole.verdict, "seed \(seed)")
            XCTAssertEqual(partitioned.verdict, seed % 2 == 0 ? .linearizable : .violated, "seed \(seed)")
        }
    }

    func testAPartLongerThanOneWordOfTheSetIsCheckedWhole() {
        // 210 operations in one part: the linearized set spans four words.
        var history = linearizableHistory(keys: 3, workers: 3, rounds: 70, seed: 11)
        let outcome = check(history, UnpartitionedKeyValueModel())
        XCTAssertEqual(outcome.verdict, .linearizable)
        assertWitness(outcome.order, for: history, model: UnpartitionedKeyValueModel())
        let last = history.indices.last { if case .get = history[$0].operation { true } else { false } } ?? 0
        history[last].result = 99
        let broken = check(history, UnpartitionedKeyValueModel())
        XCTAssertEqual(broken.verdict, .violated)
        XCTAssertEqual(broken.unexplained, [last])
    }

    func testAViolationIsReportedWithinItsKey() {
        var history = linearizableHistory(keys: 5, workers: 3, rounds: 20, seed: 3)
        // Key 9 is untouched so far: a put of 1 that returned, then a get
        // that does not see it.
        let end = (history.map(\.returned).max() ?? 0) + 1
        history.append(op(0, .put(9, 1), -1, end, end + 1))
        history.append(op(1, .get(9), -1, end + 2, end + 3))
        let outcome = check(history, KeyValueModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.closest, [history.count - 2])
        XCTAssertEqual(outcome.unexplained, [history.count - 1])
        XCTAssertEqual(outcome.closestState, KeyValueModel(storage: [9: 1]))
    }

    func testAViolatedPartIsFoundWithoutFinishingAHardLinearizablePartFirst() {
        // Key 0: 12 overlapping puts that never returned, then a get of the
        // first one's value. The depth-first search explores every order of
        // the later puts after the first one before it tries the get
        // straight after the first: linearizable, but only after many states.
        let hard: History = (0..<12).map { op($0, .put(0, $0), nil, UInt64($0)) } + [op(12, .get(0), 0, 20, 21)]
        let alone = check(hard, KeyValueModel())
        XCTAssertEqual(alone.verdict, .linearizable)
        XCTAssertGreaterThan(alone.statesExplored, 10_000)
        // Key 1, after it in the history: a get that cannot be.
        let history = hard + [op(13, .get(1), 7, 0, 1)]
        let outcome = check(history, KeyValueModel())
        XCTAssertEqual(outcome.verdict, .violated)
        XCTAssertEqual(outcome.unexplained, [13])
        XCTAssertLessThan(outcome.statesExplored, 2_000, "the parts share the search in rounds")
    }

    func testAnOperationWithoutAPartMakesTheWholeHistoryOnePart() {
        let history: [HistoryOperation<ScanModel.Operation, Int>] = [
            op(0, .put(1), 0, 0, 1), op(1, .put(2), 0, 0, 1), op(2, .count, 2, 2, 3),
        ]
        XCTAssertEqual(LinearizabilityChecker.parts(of: history, model: ScanModel.self), [[0, 1, 2]])
        XCTAssertEqual(check(history, ScanModel()).verdict, .linearizable)
    }
}

/// Keys that partition, except `count`, which reads them all.
private struct ScanModel: SequentialModel {
    enum Operation: Sendable, Hashable {
        case put(Int), count
    }
    var keys: Set<Int> = []
    mutating func apply(_ operation: Operation) -> Int {
        switch operation {
        case .put(let key): keys.insert(key); return 0
        case .count: return keys.count
        }
    }
    static func partition(of operation: Operation) -> AnyHashable? {
        if case .put(let key) = operation { return key }
        return nil
    }
}
