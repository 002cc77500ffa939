import Foundation
@testable import StressCore
@testable import StressRunner
import XCTest

/// The crash journal a controlled trial's process writes its decisions to:
/// what the parent reads back through its own mapping of the same file.
final class CrashJournalTests: XCTestCase {
    private func withJournal(_ body: (_ child: CrashJournal, _ parent: CrashJournal) throws -> Void) throws {
        let fd = try XCTUnwrap(CrashJournal.makeFile())
        defer { close(fd) }
        let child = try XCTUnwrap(CrashJournal(descriptor: fd))
        let parent = try XCTUnwrap(CrashJournal(descriptor: fd))
        try body(child, parent)
    }

    /// Makes `workers`' decisions as the scheduler does: each into a log
    /// first (a fresh one for a fresh run), then its open run into the journal.
    private func decide(_ workers: some Sequence<Int>, into journal: CrashJournal) {
        var log = DecisionLog(capacity: 16)
        defer { log.deallocate() }
        for w in workers {
            log.append(w)
            let run = log.openRun
            journal.note(run: run.index, worker: run.worker, length: run.length, decisions: log.count)
        }
    }

    func testAnUntouchedJournalHoldsNothing() throws {
        try withJournal { _, parent in XCTAssertNil(parent.contents()) }
    }

    func testTheDecisionsReadBackRunLengthEncodedWithTheRunsBounds() throws {
        try withJournal { child, parent in
            child.beginRun(opsPerThread: 1, busyWorkers: nil)
            decide([0, 0, 1, 1, 1, 0], into: child)
            let c = try XCTUnwrap(parent.contents())
            XCTAssertEqual(c.decisions, 6)
            XCTAssertEqual(c.encoded, "w0:2,w1:3,w0:1")
            XCTAssertEqual(c.lastWorker, 0)
            XCTAssertEqual(c.opsPerThread, 1)
            XCTAssertNil(c.busyWorkers)
            XCTAssertNil(c.exploration)
        }
    }

    func testANewRunReplacesTheLastOnesDecisionsAndKeepsTheExplorationsProgress() throws {
        try withJournal { child, parent in
            child.noteSchedule(bound: 2, passed: 0, pruned: 0)
            child.beginRun(opsPerThread: nil, busyWorkers: nil)
            decide([0, 1, 0], into: child)
            child.noteSchedule(bound: 2, passed: 1, pruned: 3)
            child.beginRun(opsPerThread: 4, busyWorkers: BusyWorkers([2, 5]))
            decide([1, 1], into: child)
            let c = try XCTUnwrap(parent.contents())
            XCTAssertEqual(c.decisions, 2)
            XCTAssertEqual(c.encoded, "w1:2")
            XCTAssertEqual(c.lastWorker, 1)
            XCTAssertEqual(c.busyWorkers?.workers, [2, 5], "a set of workers, kept as a mask")
            XCTAssertEqual(c.exploration?.bound, 2)
            XCTAssertEqual(c.exploration?.passed, 1)
            XCTAssertEqual(c.exploration?.pruned, 3)
        }
    }

    func testTooManySwitchesKeepTheCountButNoReplayableText() throws {
        try withJournal { child, parent in
            child.beginRun(opsPerThread: nil, busyWorkers: nil)
            let decisions = CrashJournal.runCapacity + 10
            decide((0..<decisions).lazy.map { $0 % 2 }, into: child)
            let c = try XCTUnwrap(parent.contents())
            XCTAssertEqual(c.decisions, decisions)
            XCTAssertNil(c.encoded)
        }
    }
}
