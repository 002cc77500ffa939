@testable import StressCore
import XCTest

/// A controlled trial's policy is held in a ``PolicyHolder``: restarted in
/// place for each new execution when its scheduler can be, made anew by the
/// policy when not, whatever type the policy makes it.
final class PolicyHolderTests: XCTestCase {
    /// Picks the first runnable worker; cannot restart.
    private struct First: ExecutionScheduler {
        mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int { runnable[0] }
    }

    /// Picks the last runnable worker; cannot restart.
    private struct Last: ExecutionScheduler {
        mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int { runnable[runnable.count - 1] }
    }

    /// Picks the runnable worker at its seed's place; restarts in place.
    private struct Seeded: ExecutionScheduler {
        var seed: UInt64
        mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int {
            runnable[Int(seed % UInt64(runnable.count))]
        }
        mutating func restart(seed: UInt64) -> Bool {
            self.seed = seed
            return true
        }
    }

    func testASchedulerThatCannotRestartIsMadeAnewEvenOfAnotherType() {
        final class Made { var seeds: [UInt64] = [] }
        let made = Made()
        let make = { (seed: UInt64) -> any ExecutionScheduler in
            made.seeds.append(seed)
            return seed % 2 == 0 ? First() : Last()
        }
        let held = First().held(make: make)
        let runnable = [3, 5, 7]
        XCTAssertEqual(held.nextWorker(among: runnable, oldest: 3), 3)
        held.beginExecution(seed: 1)
        XCTAssertEqual(held.nextWorker(among: runnable, oldest: 3), 7, "a scheduler of another type decides")
        held.beginExecution(seed: 3)
        XCTAssertEqual(held.nextWorker(among: runnable, oldest: 3), 7)
        held.beginExecution(seed: 4)
        XCTAssertEqual(held.nextWorker(among: runnable, oldest: 3), 3, "back to the first type")
        XCTAssertEqual(held.nextWorker(among: runnable, orTimeOut: 9, oldest: 3), 3)
        XCTAssertEqual(made.seeds, [1, 3, 4])
    }

    func testASchedulerThatRestartsIsNeverMadeAnew() {
        let held = Seeded(seed: 0).held(make: { _ in
            XCTFail("a scheduler that restarts is not made again")
            return First()
        })
        let runnable = [0, 1, 2]
        XCTAssertEqual(held.nextWorker(among: runnable, oldest: 0), 0)
        held.beginExecution(seed: 2)
        XCTAssertEqual(held.nextWorker(among: runnable, oldest: 0), 2)
        held.beginExecution(seed: 4)
        XCTAssertEqual(held.nextWorker(among: runnable, oldest: 0), 1)
    }

    /// Every new execution of a controlled trial (here a scenario's rounds)
    /// restarts the policy with the execution's own seed, then admits the
    /// queue workers and tells it the length, in that order, as the first
    /// execution's new scheduler was.
    func testEachExecutionRestartsThenAdmitsTheQueueWorkersThenTellsTheLength() {
        final class Events { var list: [String] = [] }
        struct Recording: ExecutionScheduler {
            let events: Events
            mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int { runnable[0] }
            mutating func restart(seed: UInt64) -> Bool {
                events.list.append("restart \(seed)")
                return true
            }
            mutating func admitQueueWorkers(first: Int, count: Int) { events.list.append("admit \(first) \(count)") }
            mutating func expectLength(_ picks: Int) { events.list.append("length \(picks)") }
        }
        let events = Events()
        let scheduler = ControlledScheduler(workers: 2, policy: { seed in
            events.list.append("make \(seed)")
            return Recording(events: events)
        }, seeds: { $0 &+ 100 }, forced: nil, maxDecisions: 1_000, lengthGuess: 40, onDeadlock: { _, _, _ in })
        scheduler.beginRound(0)
        scheduler.beginRound(1)
        let admit = "admit 3 \(QueueBook.slots)"
        XCTAssertEqual(events.list, ["make 100", admit, "length 40",
                                     "restart \((UInt64(1) << 32) + 100)", admit, "length 40",
                                     "restart \((UInt64(1) << 32) + 101)", admit, "length 40"])
    }
}
