import Foundation
@testable import StressCore
import XCTest

/// The history recorder's clock and merge, and the generated scenarios'
/// seeding and shrink candidates.
final class HistoryRecordingTests: XCTestCase {
    func testReadingsOrderCallsAndReturnsAndTheMergeKeepsEachWorkersOperations() {
        let recorder = HistoryRecorder<Int>(workers: 2, capacity: 3)
        recorder.call(worker: 0, index: 0)
        recorder.call(worker: 1, index: 0)
        recorder.complete(worker: 0, index: 0, result: 10)
        recorder.complete(worker: 1, index: 0, result: 11)
        recorder.call(worker: 0, index: 1)
        recorder.complete(worker: 0, index: 1, result: 12)
        recorder.call(worker: 1, index: 1)  // never returns: pending
        let history = recorder.history(parallel: [["a", "b", "c"], ["d", "e", "f"]])
        XCTAssertEqual(history.map(\.operation), ["a", "b", "d", "e"], "what was never called is left out")
        XCTAssertEqual(history.map(\.result), [10, 12, 11, nil])
        let a = history[0], b = history[1], d = history[2], e = history[3]
        XCTAssertLessThan(a.called, d.called)
        XCTAssertLessThan(d.called, a.returned, "a and d overlap")
        XCTAssertLessThan(a.returned, b.called, "a returned before b was called: a precedes b")
        XCTAssertEqual(e.returned, .max, "pending")
        XCTAssertEqual([a.worker, b.worker, d.worker, e.worker], [0, 0, 1, 1])
        recorder.reset()
        XCTAssertTrue(recorder.history(parallel: [["a"], ["d"]]).isEmpty)
    }

    func testWorkersRecordingAtOnceLoseNothing() {
        let workers = 4, perWorker = 1_000
        let recorder = HistoryRecorder<Int>(workers: workers, capacity: perWorker)
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            for i in 0..<perWorker {
                recorder.call(worker: w, index: i)
                recorder.complete(worker: w, index: i, result: w * perWorker + i)
            }
        }
        let operations = (0..<workers).map { w in (0..<perWorker).map { w * perWorker + $0 } }
        let history = recorder.history(parallel: operations)
        XCTAssertEqual(history.count, workers * perWorker)
        XCTAssertTrue(history.allSatisfy { $0.result == $0.operation && $0.called < $0.returned })
        let readings = history.flatMap { [$0.called, $0.returned] }
        XCTAssertEqual(Set(readings).count, readings.count, "every reading of the clock is its own")
    }

    func testScenariosAreSeededAndShapedAndShrinkOneOperationAtATime() {
        let shape = LinearizabilityShape(threads: 3, operationsPerThread: 2, before: 1, after: 2)
        var draws = 0
        let make = { (seed: UInt64) in
            ConcurrentScenario(shape: shape, seed: seed) { random -> Int in
                draws += 1
                return random.next(below: 1_000)
            }
        }
        let one = make(7), again = make(7), other = make(8)
        XCTAssertEqual(one.before.count, 1)
        XCTAssertEqual(one.parallel.map(\.count), [2, 2, 2])
        XCTAssertEqual(one.after.count, 2)
        XCTAssertEqual(one.count, 9)
        XCTAssertEqual(draws, 27)
        XCTAssertEqual([one.before, one.parallel.flatMap { $0 }, one.after], [again.before, again.parallel.flatMap { $0 }, again.after])
        XCTAssertNotEqual(one.parallel.flatMap { $0 }, other.parallel.flatMap { $0 })
        let smaller = one.withOneOperationFewer
        XCTAssertEqual(smaller.count, 9)
        XCTAssertTrue(smaller.allSatisfy { $0.count == 8 && $0.parallel.count == 3 }, "a worker keeps its place")
    }
}
