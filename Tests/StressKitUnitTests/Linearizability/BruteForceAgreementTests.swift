@testable import StressCore
import XCTest

/// The checker against the definition itself: on small random histories
/// (seeded, the same every run), a search that tries every real-time-
/// respecting order, with no memo and no dancing links, must give the same
/// verdict, and every witness must replay.
final class BruteForceAgreementTests: XCTestCase {
    func testRegisterHistoriesAgreeWithTryingEveryOrder() {
        var generator = SplitMix64(seed: 36)
        var verdicts: [LinearizabilityVerdict: Int] = [:]
        for _ in 0..<600 {
            let history = randomHistory(model: RegisterModel(), using: &generator) { generator in
                switch generator.next() % 3 {
                case 0: return .read
                case 1: return .write(Int(generator.next() % 3))
                default: return .compareAndSet(Int(generator.next() % 3), Int(generator.next() % 3))
                }
            } wrongResult: { generator in Int(generator.next() % 3) }
            verdicts[agree(history, RegisterModel()), default: 0] += 1
        }
        XCTAssertGreaterThan(verdicts[.linearizable] ?? 0, 100, "both verdicts well represented: \(verdicts)")
        XCTAssertGreaterThan(verdicts[.violated] ?? 0, 100, "both verdicts well represented: \(verdicts)")
    }

    func testQueueHistoriesAgreeWithTryingEveryOrder() {
        var generator = SplitMix64(seed: 360)
        var verdicts: [LinearizabilityVerdict: Int] = [:]
        for _ in 0..<600 {
            let history = randomHistory(model: QueueModel(), using: &generator) { generator in
                generator.next() % 2 == 0 ? .dequeue : .enqueue(Int(generator.next() % 3))
            } wrongResult: { generator in Int(generator.next() % 4) - 1 }
            verdicts[agree(history, QueueModel()), default: 0] += 1
        }
        XCTAssertGreaterThan(verdicts[.linearizable] ?? 0, 100, "both verdicts well represented: \(verdicts)")
        XCTAssertGreaterThan(verdicts[.violated] ?? 0, 100, "both verdicts well represented: \(verdicts)")
    }

    /// Checks `history` both ways, fails on disagreement, returns the verdict.
    private func agree<M: SequentialModel>(
        _ history: [HistoryOperation<M.Operation, M.Result>], _ model: M
    ) -> LinearizabilityVerdict {
        let outcome = check(history, model)
        let expected: LinearizabilityVerdict = everyOrder(history, remaining: Set(history.indices), state: model)
            ? .linearizable : .violated
        XCTAssertEqual(outcome.verdict, expected, "\(history.map { ($0.operation, $0.result, $0.called, $0.returned) })")
        if outcome.verdict == .linearizable { assertWitness(outcome.order, for: history, model: model) }
        if outcome.verdict == .violated { XCTAssertFalse(outcome.unexplained.isEmpty) }
        return outcome.verdict
    }

    /// Whether some order of `remaining`, each next operation one that no
    /// other remaining completed operation returned before, gives every
    /// completed operation's result (pending ones may also be left out).
    private func everyOrder<M: SequentialModel>(
        _ history: [HistoryOperation<M.Operation, M.Result>], remaining: Set<Int>, state: M
    ) -> Bool {
        if remaining.allSatisfy({ history[$0].result == nil }) { return true }
        for candidate in remaining {
            let blocked = remaining.contains { other in
                other != candidate && history[other].result != nil && history[other].returned < history[candidate].called
            }
            if blocked { continue }
            var after = state
            let result = after.apply(history[candidate].operation)
            if let recorded = history[candidate].result, recorded != result { continue }
            if everyOrder(history, remaining: remaining.subtracting([candidate]), state: after) { return true }
        }
        return false
    }

    /// Up to 7 operations on a clock of 16 ticks, each pending one time in
    /// seven; results from running them on the model at random instants
    /// within their intervals (pending ones sometimes not at all), then half
    /// the time one result replaced by a random one.
    private func randomHistory<M: SequentialModel, G: RandomNumberGenerator>(
        model: M, using generator: inout G,
        operation: (inout G) -> M.Operation, wrongResult: (inout G) -> M.Result
    ) -> [HistoryOperation<M.Operation, M.Result>] {
        let count = 1 + Int(generator.next() % 7)
        var history: [HistoryOperation<M.Operation, M.Result>] = []
        var instants: [(instant: UInt64, index: Int, takesEffect: Bool)] = []
        for index in 0..<count {
            let called = generator.next() % 12
            let returned = called + generator.next() % 5
            let pending = generator.next() % 7 == 0
            let instant = called + generator.next() % (returned - called + 1)
            history.append(HistoryOperation(
                worker: index, operation: operation(&generator), result: nil,
                called: called, returned: pending ? .max : returned))
            instants.append((instant, index, !pending || generator.next() % 2 == 0))
        }
        var state = model
        for entry in instants.sorted(by: { ($0.instant, $0.index) < ($1.instant, $1.index) }) where entry.takesEffect {
            let result = state.apply(history[entry.index].operation)
            if history[entry.index].returned != .max { history[entry.index].result = result }
        }
        if generator.next() % 2 == 0 {
            let index = Int(generator.next() % UInt64(count))
            if history[index].result != nil { history[index].result = wrongResult(&generator) }
        }
        return history
    }
}
