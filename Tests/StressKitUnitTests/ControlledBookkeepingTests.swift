import CStressSupport
import Foundation
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
        let scheduler = ControlledScheduler(workers: 3, policy: { _ in Recording(seen: seen) }, seeds: { $0 }, forced: nil,
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

    /// The hints for the next decision's prefetching share the first line
    /// with the token and never reach the counters after it: writing every
    /// hint leaves the counters as they were (and prefetching by them, a
    /// hint to the CPU that changes no memory, does not trap).
    func testTheDecisionLinesHintsLeaveItsCountersAlone() {
        var counters = DecisionLine.Counters(decidingAt: 7, log: DecisionLog(capacity: 16), trace: TraceRing(capacity: 4))
        counters.sinceSwitch = 3
        counters.sinceOperationEnd = 5
        let line = DecisionLine(workers: 3, counters: counters)
        defer { line.deallocate() }
        line.lastRan[2] = 9
        let target = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 64)
        defer { target.deallocate() }
        for hint in DecisionLine.Hint.allCases { line.hint(hint, UnsafeRawPointer(target + 512 * hint.rawValue)) }
        line.prefetchLines()
        line.prefetchHinted()
        XCTAssertEqual(line.counters.pointee.sinceSwitch, 3)
        XCTAssertEqual(line.counters.pointee.sinceOperationEnd, 5)
        XCTAssertEqual(line.counters.pointee.decidingAt, 7)
        XCTAssertEqual(line.counters.pointee.log.count, 0)
        XCTAssertEqual(line.counters.pointee.trace.count, 0)
        XCTAssertEqual((0..<3).map { line.lastRan[$0] }, [-1, -1, 9])
        XCTAssertEqual(line.token.pointee.load(ordering: .relaxed), -1)
        XCTAssertEqual(line.decisionMark.pointee.load(ordering: .relaxed), 0)
    }

    /// The trace ring's next slot moves on by one an event and wraps at its
    /// capacity, as `count % capacity` would.
    func testTheTraceRingsNextSlotWrapsAtItsCapacity() {
        var ring = TraceRing(capacity: 3)
        defer { ring.deallocate() }
        let first = ring.nextWrite
        var seen: [Int] = []
        for v in 0..<7 {
            seen.append((ring.nextWrite - first) / MemoryLayout<TraceRing.Entry>.stride)
            ring.append(0, .value, .none, value: v)
        }
        XCTAssertEqual(seen, [0, 1, 2, 0, 1, 2, 0])
        XCTAssertEqual(ring.events(names: TraceNames(operations: [])).map(\.value), [4, 5, 6])
    }

    func testTheLogKeepsRunsOfTheSameWorker() {
        var log = DecisionLog(capacity: 16)
        XCTAssertEqual(log.encoded, "")
        for w in [2, 2, 2, 0, 1, 1, 2] { log.append(w) }
        XCTAssertEqual(log.count, 7)
        XCTAssertEqual(log.encoded, "w2:3,w0:1,w1:2,w2:1")
        log.deallocate()
    }

    /// Each decider's copy of the runnable workers is made again from the
    /// board when the board changed since that copy was made: a decider
    /// that last decided before a change sees it.
    func testEachDecidersRunnableListFollowsTheBoard() {
        let scheduler = ControlledScheduler(workers: 3, policy: { _ in FirstComeScheduler() }, seeds: { $0 }, forced: nil,
                                            maxDecisions: 1_000, onDeadlock: { _, _, _ in })
        scheduler.lockState()
        for w in 0..<3 { scheduler.status[w] = .runnable }
        _ = scheduler.decide(current: 1)
        XCTAssertEqual(scheduler.runnableLists(1).pointee.workers, [0, 1, 2])
        scheduler.status[2] = .blocked
        _ = scheduler.decide(current: 0)
        XCTAssertEqual(scheduler.runnableLists(0).pointee.workers, [0, 1])
        XCTAssertEqual(scheduler.runnableLists(1).pointee.workers, [0, 1, 2], "made again only when its decider decides")
        _ = scheduler.decide(current: 1)
        XCTAssertEqual(scheduler.runnableLists(1).pointee.workers, [0, 1])
        scheduler.status[2] = .runnable
        _ = scheduler.decide(current: -1)
        XCTAssertEqual(scheduler.runnableLists(scheduler.workers).pointee.workers, [0, 1, 2])
        scheduler.unlockState()
    }

    /// The log's runs outgrow the memory reserved for them (at least 16
    /// runs): it takes more, and keeps every run.
    func testTheLogKeepsEveryRunPastItsReservedRoom() {
        var log = DecisionLog(capacity: 4)
        var expected: [String] = []
        for i in 0..<100 {
            log.append(i % 2)
            if i % 3 == 0 { log.append(i % 2) }
            expected.append("w\(i % 2):\(i % 3 == 0 ? 2 : 1)")
        }
        XCTAssertEqual(log.count, 134)
        XCTAssertEqual(log.encoded, expected.joined(separator: ","))
        XCTAssertEqual(try ScheduleEncoding.decode(log.encoded).count, 134)
        log.deallocate()
    }

    /// Every kind of subject, switch reason, value and place comes back out
    /// of the ring's small entries as it went in; and a slot that held a
    /// located event, reused by one without a place, has none.
    func testTheTraceRingGivesBackEverySubjectReasonAndPlace() {
        XCTAssertEqual(MemoryLayout<TraceRing.Entry>.stride, 24, "an event is three words, noted with three stores")
        var ring = TraceRing(capacity: 8)
        defer { ring.deallocate() }
        let names = TraceNames(operations: [("enqueue", ["read", "write"])])
        ring.append(1, .operationStart, .operation(0))
        ring.append(1, .step, .step(op: 0, step: 1))
        ring.append(0, .acquire, .key(0), at: TraceRing.Location(file: "Queue.swift", line: 42))
        ring.append(0, .point, .label("after the check"), at: TraceRing.Location(file: "Cache.swift", line: 7))
        ring.append(2, .value, .label("count"), value: -5)
        ring.append(0, .switch, .none, reason: .preempted)
        ring.append(1, .switch, .none, reason: .waiting(ControlledScheduler.rolesBarrier))
        ring.append(2, .wait, .barrier)
        let events = ring.events(names: names)
        XCTAssertEqual(events.map(\.worker), [1, 1, 0, 0, 2, 0, 1, 2])
        XCTAssertEqual(events.map(\.kind), [.operationStart, .step, .acquire, .point, .value, .switch, .switch, .wait])
        XCTAssertEqual(events.map(\.name), ["enqueue", "enqueue/write", PrimitiveNames.describe(0), "after the check", "count",
                                             "preempted", "waits at the round's barrier", "the round's barrier"])
        XCTAssertEqual(events.map(\.value), [nil, nil, nil, nil, -5, nil, nil, nil])
        XCTAssertEqual(events.map(\.file), [nil, nil, "Queue.swift", "Cache.swift", nil, nil, nil, nil])
        XCTAssertEqual(events.map(\.line), [nil, nil, 42, 7, nil, nil, nil, nil])
        XCTAssertEqual(events.map(\.preempted), [nil, nil, nil, nil, nil, true, false, nil])
        XCTAssertEqual(ring.preemptions, 1)
        // Slots 0 to 3 (2 and 3 held the located events) are written again, without places.
        for v in 0..<4 { ring.append(3, .value, .none, value: v) }
        let later = ring.events(names: names)
        XCTAssertEqual(later.suffix(4).map(\.value), [0, 1, 2, 3])
        XCTAssertEqual(later.map(\.file), Array(repeating: nil, count: 8))
        XCTAssertEqual(later.first?.name, "count", "the label of a slot not written again stays")
    }

    /// Every switch reason comes back out as it went in, with the place of a
    /// preemption at a point the code under test placed; a place with only
    /// a label, on an event whose subject is not a label, shows nothing (as
    /// before the entries were made small) and takes no place's slot.
    func testTheTraceRingGivesBackEverySwitchReason() {
        var ring = TraceRing(capacity: 8)
        defer { ring.deallocate() }
        let key = WaitKey.mainQueue
        ring.append(0, .switch, .none, reason: .blocked(key))
        ring.append(1, .switch, .none, reason: .waiting(key))
        ring.append(0, .switch, .none, reason: .finished)
        ring.append(1, .switch, .none, reason: .spinning)
        ring.append(1, .switch, .none, reason: .preempted, at: TraceRing.Location(file: "Worker.swift", line: 12))
        ring.append(1, .acquire, .key(key), at: TraceRing.Location(label: "ignored"))
        let events = ring.events(names: TraceNames(operations: []))
        XCTAssertEqual(events.map(\.name), ["blocked on " + PrimitiveNames.describe(key), "waits on " + PrimitiveNames.describeCondition(key),
                                             "finished", "spinning (no operation ended for \(ControlledScheduler.spinLimit) points)",
                                             "preempted", PrimitiveNames.describe(key)])
        XCTAssertEqual(events.map(\.preempted), [false, false, false, true, true, nil])
        XCTAssertEqual(events.map(\.file), [nil, nil, nil, nil, "Worker.swift", nil])
        XCTAssertEqual(events.map(\.line), [nil, nil, nil, nil, 12, nil])
        XCTAssertEqual(ring.preemptions, 1, "a spinning worker's switch is forced, not counted as a preemption")
    }

    /// The trace keeps its last `capacity` events, oldest first, once more
    /// were noted; and all of them before.
    func testTheTraceRingKeepsItsLastEventsInOrder() {
        var ring = TraceRing(capacity: 5)
        let names = TraceNames(operations: [])
        func note(_ value: Int) {
            ring.append(0, .value, .none, value: value)
        }
        for v in 0..<3 { note(v) }
        XCTAssertEqual(ring.events(names: names).map(\.value), [0, 1, 2])
        for v in 3..<12 { note(v) }
        XCTAssertEqual(ring.count, 12)
        XCTAssertEqual(ring.events(names: names).map(\.value), [7, 8, 9, 10, 11])
        ring.describeLast("state")
        XCTAssertEqual(ring.events(names: names).map(\.state), [nil, nil, nil, nil, "state"])
        ring.deallocate()
    }

    /// A scheduler of two workers, both runnable, `holder` holding the token
    /// (first come, first served: the escape tests' decisions are plain).
    private func twoRunnableWorkers(holder: Int) -> ControlledScheduler {
        let scheduler = ControlledScheduler(workers: 2, policy: { _ in FirstComeScheduler() }, seeds: { $0 }, forced: nil,
                                            maxDecisions: 1_000, onDeadlock: { _, _, _ in })
        scheduler.lockState()
        for w in 0..<2 { scheduler.status[w] = .runnable }
        scheduler.token.pointee.store(holder, ordering: .relaxed)
        scheduler.unlockState()
        return scheduler
    }

    /// The escape monitor's verdict on a token holder that made no decision
    /// for long and sleeps in the kernel: parked on its own baton, it was
    /// handed the token and not woken yet (its passer was preempted between
    /// letting the state lock go and waking it), so it keeps the token and
    /// is woken; asleep anywhere else, it escaped, and the token goes on.
    func testAHolderParkedOnItsBatonIsWokenNotEscaped() {
        let scheduler = twoRunnableWorkers(holder: 1)
        let mark = scheduler.decisionMark.pointee.load(ordering: .relaxed)

        scheduler.batons[1].sleeping = 1
        let turn = scheduler.batons[1].turn
        scheduler.escape(1, mark: mark, who: "worker 1", place: "in step x")
        XCTAssertEqual(scheduler.token.pointee.load(ordering: .relaxed), 1, "the token stays with the parked holder")
        XCTAssertEqual(scheduler.status[1], .runnable)
        XCTAssertEqual(scheduler.record().controlled, .full)
        XCTAssertEqual(scheduler.batons[1].turn, turn, "woken, not handed the token again")

        scheduler.batons[1].sleeping = 0
        scheduler.escape(1, mark: mark, who: "worker 1", place: "in step x")
        XCTAssertEqual(scheduler.status[1], .escaped)
        XCTAssertEqual(scheduler.token.pointee.load(ordering: .relaxed), 0, "the others go on without it")
        XCTAssertEqual(scheduler.record().controlled, .partial)
    }

    /// A worker woken without the token, after the escape monitor marked it
    /// escaped while it slept (it was handed the token and woken too late),
    /// rejoins: runnable again, it waits for a decision to pick it, rather
    /// than for a token no decision would ever give an escaped worker.
    func testAWorkerMarkedEscapedWhileItSleptRejoinsWhenWoken() {
        let scheduler = twoRunnableWorkers(holder: 0)
        let thread = Thread { scheduler.waitForTurn(1) }
        thread.start()
        // Whether worker 1 has begun to wait or not, the state below is what
        // it finds once woken: escaped, the token with worker 0.
        scheduler.lockState()
        scheduler.status[1] = .escaped
        scheduler.unlockState()
        let deadline = Date().addingTimeInterval(30)
        var rejoined = false
        while !rejoined && Date() < deadline {
            stress_baton_pass(scheduler.batons + 1)  // a wake-up with no token for it
            scheduler.lockState()
            rejoined = scheduler.status[1] == .runnable
            scheduler.unlockState()
            if !rejoined { usleep(1_000) }
        }
        XCTAssertTrue(rejoined, "woken without the token, the escaped worker is runnable again")
        XCTAssertEqual(scheduler.token.pointee.load(ordering: .relaxed), 0, "the token stays where it was")
        // A decision can now pick it, and its wait ends.
        scheduler.lockState()
        scheduler.pass(to: 1)
        scheduler.unlockState()
        while !thread.isFinished && Date() < deadline { usleep(1_000) }
        XCTAssertTrue(thread.isFinished)
    }
}
