import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A controlled trial whose process dies keeps its decisions up to the
/// crash, its trace ending with the crash, and an explored trial its
/// exploration record: the process wrote its decisions to a journal that
/// outlives it, and the parent replays them to draw the trace.
///
/// Both fixtures crash at a fixed point of every schedule, so the tests hold
/// for any seed; the seeds are fixed anyway, so that a failure replays.
final class CrashedControlledTrialTests: XCTestCase {
    /// The nested transaction re-entering its serial queue: libdispatch traps
    /// the inner `sync` (SIGILL), under control, in a child process.
    private func runReenter(explore: Bool = false, schedule: String? = nil) throws -> RunReport {
        var options = RunOptions(isolation: TestSupport.childIsolation)
        options.forcedSchedule = schedule
        let report = try PlanRunner.run(yaml: """
            experiments:
              - name: reenter
                scenario: nested-transaction-once
                parameters: { variant: reenter }
                strategies: [serial-queue]
                schedule: controlled
                fuzz: yield
                seed: 11
                duration: 300ms
                warmup: 0
            \(explore ? "    explore: { preemptions: 2 }" : "")
            """, file: "crash.yaml", registry: TestSupport.registry, options: options)
        XCTAssertEqual(report.trials.count, 1)
        return report
    }

    func testACrashedControlledTrialKeepsItsScheduleAndATraceEndingWithTheCrash() throws {
        let r = try XCTUnwrap(runReenter().trials.first)
        XCTAssertEqual(r.outcome, .crashed, WorkloadTestSupport.describe(r))
        XCTAssertEqual(r.failure?.signal, "SIGILL")
        let schedule = try XCTUnwrap(r.schedule)
        XCTAssertEqual(schedule.mode, .controlled)
        let decisions = try XCTUnwrap(schedule.decisions)
        XCTAssertGreaterThan(decisions, 0)
        let encoded = try XCTUnwrap(schedule.encoded)
        XCTAssertEqual(try ScheduleEncoding.decode(encoded, workers: 2).count, decisions)
        XCTAssertNil(r.exploration, "a trial that was not explored has no exploration record")

        let trace = try XCTUnwrap(r.trace)
        XCTAssertGreaterThan(trace.count, 1)
        let last = try XCTUnwrap(trace.last)
        XCTAssertEqual(last.kind, .crash)
        XCTAssertEqual(last.name, "SIGILL")
        // The worker chosen last ran into the crash: the transaction, which
        // had asked for its queue before.
        XCTAssertEqual(last.worker, try ScheduleEncoding.decode(encoded).last)
        XCTAssertTrue(trace.dropLast().contains { $0.worker == last.worker && $0.kind == .acquire }, "\(trace)")
        XCTAssertEqual(trace.filter { $0.kind == .crash }.count, 1)

        // The text report draws it, with the replay line.
        let details = TableReport.details(r, planFile: "crash.yaml")
        XCTAssertTrue(details.contains("schedule: controlled, \(decisions) decisions"), details)
        XCTAssertTrue(details.contains("interleaving ("), details)
        XCTAssertTrue(details.contains("-- crashed (SIGILL) --"), details)
        XCTAssertTrue(details.contains("replay: stressbench replay crash.yaml --only \(r.trial.id) --seed \(r.trial.seed) --schedule \(encoded)"), details)
    }

    func testTheRecordedScheduleCrashesAgainTheSameWay() throws {
        let first = try XCTUnwrap(runReenter().trials.first)
        let encoded = try XCTUnwrap(first.schedule?.encoded)
        for _ in 0..<2 {
            let again = try XCTUnwrap(runReenter(schedule: encoded).trials.first)
            XCTAssertEqual(again.outcome, .crashed, WorkloadTestSupport.describe(again))
            XCTAssertEqual(again.failure?.signal, first.failure?.signal)
            XCTAssertEqual(again.schedule?.encoded, encoded, "the same decisions up to the crash")
            XCTAssertEqual(again.trace, first.trace, "the same trace, row for row")
        }
    }

    func testACrashedExplorationSaysWhichScheduleCrashed() throws {
        let report = try runReenter(explore: true)
        let r = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(r.outcome, .crashed, WorkloadTestSupport.describe(r))
        let exploration = try XCTUnwrap(r.exploration)
        XCTAssertEqual(exploration.failed, 1)
        XCTAssertFalse(exploration.complete)
        XCTAssertEqual(exploration.bound, 2)
        XCTAssertGreaterThanOrEqual(exploration.schedules, 1)
        let encoded = try XCTUnwrap(r.schedule?.encoded)
        XCTAssertEqual(exploration.failingSchedule, encoded)
        XCTAssertEqual(r.trace?.last?.kind, .crash)
        // A scenario explores one round: the replay line says so.
        let details = TableReport.details(r, planFile: "crash.yaml")
        XCTAssertTrue(details.contains("--schedule \(encoded) --ops 1"), details)
        let text = TableReport.render(report)
        XCTAssertTrue(text.contains("\(r.trial.id): explored \(exploration.schedules) schedule"), text)
    }

    /// A Swift runtime trap in the code under test (`fatalError`), worker 0's
    /// third operation, inside its critical section.
    func testARuntimeTrapInTheCodeUnderTestEndsTheTraceOnTheTrappingWorker() throws {
        let r = try runFault("trap")
        XCTAssertEqual(r.outcome, .crashed, WorkloadTestSupport.describe(r))
        XCTAssertTrue(r.failure?.outputTail.contains { $0.contains("Fatal error: injected trap at op #3") } == true)
        let trace = try XCTUnwrap(r.trace)
        XCTAssertEqual(trace.last?.kind, .crash)
        XCTAssertEqual(trace.last?.worker, 0, "worker 0 traps: \(trace)")
        XCTAssertEqual(trace.filter { $0.worker == 0 && $0.kind == .operationStart }.count, 4, "operations #0 to #3: \(trace)")
        XCTAssertGreaterThan(r.schedule?.decisions ?? 0, 0)
    }

    /// A controlled trial whose process freezes (SIGSTOP: its watchdog too)
    /// is killed by its timeout; its journal still holds its decisions, so
    /// it keeps its schedule, the replay line and a trace ending where it
    /// stopped, as a crash does. The timeout leaves a loaded machine's debug
    /// build seconds to reach the stop, and the trace's replay (a second
    /// process under the same timeout) as long to reach its halt.
    func testAControlledTrialKilledByItsTimeoutKeepsItsScheduleAndTrace() throws {
        let r = try runFault("stop", file: "stop.yaml", limits: "timeout: 6s, deadlock_after: 1s")
        XCTAssertEqual(r.outcome, .timeout, WorkloadTestSupport.describe(r))
        let encoded = try XCTUnwrap(r.schedule?.encoded, "the journal's decisions")
        XCTAssertGreaterThan(r.schedule?.decisions ?? 0, 0)
        let trace = try XCTUnwrap(r.trace)
        let last = try XCTUnwrap(trace.last)
        XCTAssertEqual(last.kind, .crash)
        XCTAssertEqual(last.name, "timed out: killed after 6s")
        XCTAssertEqual(last.worker, try ScheduleEncoding.decode(encoded).last)
        let details = TableReport.details(r, planFile: "stop.yaml")
        XCTAssertTrue(details.contains("-- timed out: killed after 6s --"), details)
        XCTAssertFalse(details.contains("crashed ("), details)
        XCTAssertTrue(details.contains("replay: stressbench replay stop.yaml --only \(r.trial.id) --seed \(r.trial.seed) --schedule \(encoded)"), details)
    }

    /// One controlled trial of the `_fault` workload, `mode` striking worker
    /// 0's operation #3 inside its critical section (2 workers, `pthread-mutex`,
    /// fuzz yield, seed 5), in a child process; `limits` adds plan keys.
    private func runFault(_ mode: String, file: String = "crash.yaml", limits: String? = nil) throws -> TrialResult {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - {workload: _fault, parameters: {mode: \(mode), where: critical-section, after_ops: 3}, strategies: [pthread-mutex],
                 threads: [2], ops: 50, warmup: 0, schedule: controlled, fuzz: yield, seed: 5\(limits.map { ", " + $0 } ?? "")}
            """, file: file, registry: TestSupport.registry, options: RunOptions(isolation: TestSupport.childIsolation))
        XCTAssertEqual(report.trials.count, 1)
        return try XCTUnwrap(report.trials.first)
    }
}
