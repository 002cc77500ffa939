import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The drawn interleaving of a failed controlled trial: its columns and
/// rows, how a long one is folded and capped, and a deadlock's end.
final class TraceRenderingTests: XCTestCase {
    /// The counter's lost update draws as the guide shows it: one column per
    /// worker, the operation at the column's start, its reads and writes
    /// indented with their locations, the preemption in the column of the
    /// worker that lost the token; at most 15 lines with its replay line.
    func testTheCountersLostUpdateDrawsAsTheGuideShowsIt() throws {
        let r = TraceFixtures.lostUpdateResult()
        let block = try XCTUnwrap(TraceText.block(r))
        XCTAssertEqual(block, [
            "interleaving (2 workers, 1 preemption; shrunk from 4,812 events):",
            "| worker 0                      | worker 1                      |",
            "| increment()                   |                               |",
            "|   read count -> 0  Counter:41 |                               |",
            "|   -- switch (preempted) --    |                               |",
            "|                               | increment()                   |",
            "|                               |   read count -> 0  Counter:41 |",
            "|                               |   write count = 1  Counter:42 |",
            "|   write count = 1  Counter:42 |                               |",
        ])
        let lines = r.interleavingLines(planFile: "Plans/bugs.yaml", rerun: nil, drawTrace: true)
        XCTAssertLessThanOrEqual(lines.count, 15)
        XCTAssertEqual(lines.last, "replay: stressbench replay Plans/bugs.yaml --only counter-lost-update/unsynchronized/t2/r0 --seed 1 --schedule w0:2,w1:3,w0:1")
        XCTAssertTrue(lines.contains("shrunk from 4,812 events, 3 preemptions to 11 events, 1 preemption (57 candidates replayed)"), "\(lines)")
    }

    /// Every drawn row of an event that named its source carries `File:line`,
    /// the file's last path component without `.swift`.
    func testEveryRowOfAnEventWithASourceCarriesItsFileAndLine() throws {
        let lines = TraceLine.lines(of: TraceFixtures.lostUpdate)
        for line in lines where line.events.contains(where: { TraceFixtures.lostUpdate[$0].file != nil }) {
            XCTAssertNotNil(line.location, line.text)
        }
        XCTAssertEqual(TraceLine.location(of: TraceEvent(worker: 0, kind: .point, name: "", file: "A/B/Ledger.swift", line: 7)), "Ledger:7")
        XCTAssertEqual(TraceLine.location(of: TraceEvent(worker: 0, kind: .point, name: "", file: "notes.txt", line: nil)), "notes.txt")
        XCTAssertNil(TraceLine.location(of: TraceEvent(worker: 0, kind: .point, name: "", line: 3)))
    }

    /// Each kind of event has its own wording; an immediate grant shares its
    /// request's line, and what the next line says anyway gets none.
    func testEachKindOfEventReadsAsItsRowSays() {
        let e = { (kind: TraceEvent.Kind, name: String, value: Int?, preempted: Bool?) in
            TraceLine.text(of: TraceEvent(worker: 0, kind: kind, name: name, value: value, preempted: preempted))
        }
        XCTAssertEqual(e(.operationStart, "push", nil, nil), "push()")
        XCTAssertEqual(e(.operationStart, "transfer(1, 2)", nil, nil), "transfer(1, 2)")
        XCTAssertNil(e(.operationEnd, "push", nil, nil))
        XCTAssertEqual(e(.operationEnd, "pop", 3, nil), "  returns 3")
        XCTAssertEqual(e(.step, "debit", nil, nil), "  step debit")
        XCTAssertEqual(e(.acquire, "the lock 'tally'", nil, nil), "  acquire the lock 'tally'")
        XCTAssertEqual(e(.acquired, "the lock 'tally'", nil, nil), "  acquired the lock 'tally'")
        XCTAssertEqual(e(.release, "the lock 'tally'", nil, nil), "  release the lock 'tally'")
        XCTAssertEqual(e(.wait, "the condition 'ready'", nil, nil), "  wait on the condition 'ready'")
        XCTAssertEqual(e(.signal, "the condition 'ready'", nil, nil), "  signal the condition 'ready'")
        XCTAssertEqual(e(.point, "", nil, nil), "  fuzzPoint()")
        XCTAssertEqual(e(.point, "after-check", nil, nil), "  fuzzPoint(\"after-check\")")
        XCTAssertEqual(e(.value, "read count", 0, nil), "  read count -> 0")
        XCTAssertEqual(e(.value, "write count =", 1, nil), "  write count = 1")
        XCTAssertEqual(e(.value, "checked", nil, nil), "  checked")
        XCTAssertEqual(e(.switch, "preempted", nil, true), "  -- switch (preempted) --")
        XCTAssertEqual(e(.switch, "blocked on the lock 'a'", nil, false), "  -- switch (blocked on the lock 'a') --")
        XCTAssertNil(e(.switch, "finished", nil, false), "a finished worker's column just ends")
        XCTAssertEqual(e(.stuck, "the lock 'b'", nil, nil), "  stuck waiting for the lock 'b'")

        let blocked = [
            TraceEvent(worker: 0, kind: .acquire, name: "the lock 'a'"),
            TraceEvent(worker: 0, kind: .switch, name: "blocked on the lock 'a'", preempted: false),
            TraceEvent(worker: 1, kind: .release, name: "the lock 'a'"),
            TraceEvent(worker: 1, kind: .switch, name: "finished", preempted: false),
            TraceEvent(worker: 0, kind: .acquired, name: "the lock 'a'"),
        ]
        XCTAssertEqual(TraceLine.lines(of: blocked).map(\.text),
                       ["  acquire the lock 'a'", "  -- switch (blocked on the lock 'a') --", "  release the lock 'a'", "  acquired the lock 'a'"],
                       "a grant after a wait has its own line")
        XCTAssertEqual(TraceLine.lines(of: blocked).map(\.events), [0..<1, 1..<2, 2..<4, 4..<5], "the hidden switch belongs to the line before it")

        let leading = [TraceEvent(worker: 1, kind: .operationEnd, name: "push")] + blocked
        XCTAssertEqual(TraceLine.lines(of: leading).map(\.events), [0..<2, 2..<3, 3..<5, 5..<6], "so do hidden events before the first line")
        var nothing = TraceFixtures.lostUpdateResult()
        nothing.trace = [TraceEvent(worker: 0, kind: .operationEnd, name: "push")]
        XCTAssertNil(TraceText.block(nothing), "nothing to draw")
    }

    /// A controlled trial's queue workers (numbered after its thread
    /// workers and the main thread) head their columns with the queue whose
    /// blocks they ran; the main thread's column is `main`.
    func testAQueueWorkersColumnIsNamedByItsQueue() throws {
        var result = TraceFixtures.lostUpdateResult()
        let threads = result.trial.threads
        result.trace = [
            TraceEvent(worker: 0, kind: .point, name: "async: block queued"),
            TraceEvent(worker: 0, kind: .switch, name: "preempted", preempted: true),
            TraceEvent(worker: threads + 1, kind: .acquire, name: "the queue 'jobs'"),
            TraceEvent(worker: threads + 1, kind: .release, name: "the queue 'jobs'"),
            TraceEvent(worker: -1, kind: .acquire, name: "the main queue"),
        ]
        let block = try XCTUnwrap(TraceText.block(result))
        let header = try XCTUnwrap(block.dropFirst().first)
        XCTAssertTrue(header.contains("| queue 'jobs'"), header)
        XCTAssertTrue(header.contains("| main"), header)
        XCTAssertTrue(header.contains("| worker 0"), header)
        XCTAssertEqual(TraceText.queueWorkerNames([TraceEvent(worker: threads + 2, kind: .point, name: "x")], threads: threads),
                       [threads + 2: "queue worker \(threads + 2)"])
        XCTAssertEqual(TraceText.queueWorkerNames([TraceEvent(worker: threads, kind: .point, name: "x")], threads: threads), [:],
                       "index `threads` is the main thread's, never a queue worker's")
    }

    /// A long run of one worker keeps its first 2 and last 4 lines, and one
    /// line between them counts the events and operations it leaves out.
    func testALongRunOfOneWorkerFoldsIntoOneLine() throws {
        let trace = TraceFixtures.increments(worker: 0, 10)
            + [TraceEvent(worker: 0, kind: .switch, name: "preempted", preempted: true)]
            + TraceFixtures.increments(worker: 1, 1)
        var r = TraceFixtures.lostUpdateResult()
        r.trace = trace
        r.shrink = nil
        let block = try XCTUnwrap(TraceText.block(r))
        XCTAssertEqual(block[0], "interleaving (2 workers, 1 preemption, 56 events):", "the length is said when some of it is folded")
        let rows = Array(block.dropFirst(2))
        // Worker 0: 10 operations of 4 lines (start, read, point, write), then the switch: 41 lines.
        XCTAssertEqual(rows.count, 2 + 1 + 4 + 4, "\(block.joined(separator: "\n"))")
        XCTAssertTrue(rows[0].hasPrefix("| increment()"))
        XCTAssertTrue(rows[1].hasPrefix("|   read count -> 0"))
        // Left out: lines 2 to 36 of the run, events 2 to 45 (the hidden
        // ends included), from the first operation's point to the last one's start.
        XCTAssertTrue(rows[2].hasPrefix("| ... 44 more events of worker 0 (9 operations) ..."), rows[2])
        XCTAssertTrue(rows[3].hasPrefix("|   read count -> 9"), rows[3])
        XCTAssertTrue(rows[4].hasPrefix("|   fuzzPoint()"), rows[4])
        XCTAssertTrue(rows[5].hasPrefix("|   write count = 10"), rows[5])
        XCTAssertTrue(rows[6].hasPrefix("|   -- switch (preempted) --"), rows[6])
        XCTAssertTrue(rows[7].contains("| increment()"), "worker 1's short run is whole: \(rows[7])")
        XCTAssertEqual(Set(rows.map(\.count)).count, 1, "a fold spans the table: every row is as wide")
    }

    /// Past 60 lines the earliest give way to one line that counts them: the
    /// end (the failure) and the switches nearest it stay.
    func testALongTraceKeepsItsEndAndTheSwitchesNearestIt() throws {
        var trace: [TraceEvent] = []
        for n in 0..<100 {
            let w = n % 2
            trace += TraceFixtures.increments(worker: w, 1)
            trace.append(TraceEvent(worker: w, kind: .switch, name: "preempted", preempted: true))
        }
        trace.append(TraceEvent(worker: 0, kind: .value, name: "final count", value: 99))
        var r = TraceFixtures.lostUpdateResult()
        r.trace = trace
        let block = try XCTUnwrap(TraceText.block(r))
        let rows = Array(block.dropFirst(2))
        XCTAssertEqual(rows.count, TraceFolding.standard.maxLines)
        // 100 runs of 5 lines and the last line: the last 59 lines are the
        // final one, the last 11 runs, and run 88's last 3 (from its point, event 530).
        XCTAssertTrue(rows[0].hasPrefix("| ... 530 earlier events (88 preemptions, 89 operations) ..."), rows[0])
        XCTAssertTrue(rows.last!.hasPrefix("|   final count -> 99"), rows.last!)
        XCTAssertEqual(rows.filter { $0.contains("-- switch (preempted) --") }.count, 12)
        XCTAssertTrue(block[0].hasPrefix("interleaving (2 workers, 100 preemptions, 601 events;"), block[0])
    }

    /// A deadlock's trace ends with each stuck worker's wait, and a line per
    /// edge of the wait-for cycle.
    func testADeadlocksTraceEndsWithEachStuckWorkerAndTheCycle() throws {
        let block = try XCTUnwrap(TraceText.block(TraceFixtures.lockOrderResult()))
        XCTAssertEqual(block, [
            "interleaving (2 workers, 1 preemption):",
            "| worker 0                                    | worker 1                                    |",
            "| transfer(a, b)                              |                                             |",
            "|   acquire the lock 'a'            Ledger:30 |                                             |",
            "|   -- switch (preempted) --                  |                                             |",
            "|                                             | transfer(b, a)                              |",
            "|                                             |   acquire the lock 'b'            Ledger:30 |",
            "|                                             |   acquire the lock 'a'            Ledger:31 |",
            "|                                             |   -- switch (blocked on the lock 'a') --    |",
            "|   acquire the lock 'b'            Ledger:31 |                                             |",
            "|   -- switch (blocked on the lock 'b') --    |                                             |",
            "|   stuck waiting for the lock 'b'  Ledger:31 |                                             |",
            "|                                             |   stuck waiting for the lock 'a'  Ledger:31 |",
            "cycle: worker 0 holds the lock 'a' and waits for the lock 'b', held by worker 1",
            "       worker 1 holds the lock 'b' and waits for the lock 'a', held by worker 0",
        ])
    }

    /// The main thread's events get a `main` column, first; a state
    /// description a `state` column at the right.
    func testTheMainThreadAndTheStateGetColumnsOfTheirOwn() throws {
        let trace = [
            TraceEvent(worker: -1, kind: .operationStart, name: "setup", state: "count 0"),
            TraceEvent(worker: 0, kind: .operationStart, name: "increment"),
            TraceEvent(worker: 0, kind: .value, name: "write count =", value: 1, state: "count 1"),
        ]
        var r = TraceFixtures.lostUpdateResult()
        r.trace = trace
        r.shrink = nil
        XCTAssertEqual(try XCTUnwrap(TraceText.block(r)), [
            "interleaving (1 worker and main, 0 preemptions):",
            "| main    | worker 0          | state   |",
            "| setup() |                   | count 0 |",
            "|         | increment()       |         |",
            "|         |   write count = 1 | count 1 |",
        ])
    }

    /// Long names are cut with `…`, keeping the location; columns stay bounded.
    func testLongNamesAreCutAndColumnsStayBounded() throws {
        let long = String(repeating: "x", count: 200)
        let trace = [
            TraceEvent(worker: 0, kind: .operationStart, name: long),
            TraceEvent(worker: 0, kind: .value, name: long, value: 1, file: "Big/Table.swift", line: 9, state: long),
        ]
        var r = TraceFixtures.lostUpdateResult()
        r.trace = trace
        let rows = try XCTUnwrap(TraceText.block(r)).dropFirst()
        let table = TraceTable.standard
        for row in rows {
            XCTAssertLessThanOrEqual(row.count, table.maxColumnWidth + table.maxStateWidth + 7, row)
        }
        XCTAssertTrue(rows.contains { $0.contains("x…  Table:9 |") }, rows.joined(separator: "\n"))
    }

    /// docs/traces.md quotes the renderer's real output on these fixtures:
    /// the page changes when the drawing does. (When the page shows a
    /// captured trace instead, its check goes with it.)
    func testTheGuideQuotesTheRenderersOutput() throws {
        let page = try DocumentationPages.page(containing: "# Reading an interleaving trace").text
        let details = TableReport.details(TraceFixtures.lostUpdateResult(), planFile: "Plans/bugs.yaml")
        XCTAssertTrue(page.contains("```text\n" + details + "\n```"), details)
        var long = TraceFixtures.lostUpdateResult()
        long.trace = TraceFixtures.longLostUpdate
        long.shrink = nil
        for block in [try XCTUnwrap(TraceText.block(long)), try XCTUnwrap(TraceText.block(TraceFixtures.lockOrderResult()))] {
            XCTAssertTrue(page.contains("```text\n" + block.joined(separator: "\n") + "\n```"), block.joined(separator: "\n"))
        }
        let exploration = ScheduleRecord.Exploration(schedules: 1_204, failed: 0, complete: true, bound: 2,
                                                     schedulesWithoutPruning: 3_310, pruned: 2_106)
        XCTAssertTrue(page.contains("start-cancel/mutex/t2/r0: " + ExplorationText.line(exploration) + "\n"))
        XCTAssertTrue(page.contains(TraceText.shrinkLine(TraceFixtures.lostUpdateShrink)))
    }

    func testCountsAreGroupedAndPluralized() {
        XCTAssertEqual(TraceText.grouped(0), "0")
        XCTAssertEqual(TraceText.grouped(999), "999")
        XCTAssertEqual(TraceText.grouped(4_812), "4,812")
        XCTAssertEqual(TraceText.grouped(1_234_567), "1,234,567")
        XCTAssertEqual(TraceText.grouped(-1_000), "-1,000")
        XCTAssertEqual(TraceText.counted(1, "preemption"), "1 preemption")
        XCTAssertEqual(TraceText.counted(1_204, "schedule"), "1,204 schedules")
    }

    /// The shrink line says both sizes, and when the time bound stopped it.
    func testTheShrinkLineSaysBothSizes() {
        var s = TraceFixtures.lostUpdateShrink
        XCTAssertEqual(TraceText.shrinkLine(s), "shrunk from 4,812 events, 3 preemptions to 11 events, 1 preemption (57 candidates replayed)")
        s.timedOut = true
        XCTAssertTrue(TraceText.shrinkLine(s).hasSuffix("; stopped at its time bound: smaller, perhaps not smallest)"))
    }

    /// The exploration's answer: complete, failed, or stopped by its budget,
    /// with what pruning saved.
    func testTheExplorationLineGivesTheAnswer() {
        typealias E = ScheduleRecord.Exploration
        XCTAssertEqual(ExplorationText.line(E(schedules: 1_204, failed: 0, complete: true, bound: 2, schedulesWithoutPruning: 3_310, pruned: 2_106)),
                       "explored 1,204 schedules with at most 2 preemptions: 0 failed (complete for this bound); "
                       + "3,310 without pruning (2,106 skipped as equivalent)")
        XCTAssertEqual(ExplorationText.line(E(schedules: 37, failed: 1, complete: false, bound: 1, failingSchedule: "w0:2,w1:3,w0:1")),
                       "explored 37 schedules with at most 1 preemption: 1 failed (the first: --schedule 'w0:2,w1:3,w0:1')")
        XCTAssertEqual(ExplorationText.line(E(schedules: 812, failed: 0, complete: false, bound: 2, pruned: 40, coverage: 0.37)),
                       "explored with at most 2 preemptions: 0 failed, stopped at the time budget after 812 schedules (~37% of the space); "
                       + "40 more skipped as equivalent by pruning")
        XCTAssertEqual(ExplorationText.line(E(schedules: 5, failed: 0, complete: false, bound: 2)),
                       "explored with at most 2 preemptions: 0 failed, stopped at the time budget after 5 schedules (share of the space not estimated)")
        XCTAssertEqual(ExplorationText.line(E(schedules: 600, failed: 0, complete: true, bound: 2, shard: "2/4")),
                       "shard 2/4: explored 600 schedules with at most 2 preemptions: 0 failed (this shard's share complete for this bound)")
    }
}
