import Foundation
import StressKit
import XCTest

/// Trials that trap, deadlock, hang, die or lie: each becomes a clear record and
/// every other trial's result stays intact.
final class FaultInjectionTests: XCTestCase {
    /// A correct trial placed before and after each fault, to show the run goes on.
    private func sandwich(_ fault: String) -> String {
        """
        defaults: { threads: 2, warmup: 0s, deadlock_after: 500ms }
        experiments:
          - name: before
            workload: bank
            strategies: [mutex]
            ops: 2000
          - name: fault
        \(fault.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
          - name: after
            workload: counter
            strategies: [pthread-mutex]
            ops: 2000
        """
    }

    private func runSandwich(_ fault: String) throws -> TrialResult {
        let report = try TestSupport.runIsolated(sandwich(fault))
        XCTAssertEqual(report.trials.count, 3)
        XCTAssertEqual(report.trials[0].outcome, .passed)
        XCTAssertEqual(report.trials[0].measurement?.totalOps, 4000, "the trial before is intact")
        XCTAssertEqual(report.trials[2].outcome, .passed)
        XCTAssertEqual(report.trials[2].measurement?.totalOps, 4000, "the trial after ran")
        XCTAssertEqual(report.exitCode, .trialFailures)
        let fault = report.trials[1]
        XCTAssertEqual(fault.rerunCommand, "stressbench run test.yaml --only \(fault.trial.id) --seed \(fault.trial.seed)")
        return fault
    }

    func testTrapInsideACriticalSection() throws {
        let r = try runSandwich("""
            workload: _fault
            parameters: { mode: trap, where: critical-section, after_ops: 100 }
            strategies: [pthread-mutex]
            ops: 1000
            """)
        XCTAssertEqual(r.outcome, .crashed)
        XCTAssertTrue(["SIGILL", "SIGTRAP"].contains(r.failure?.signal ?? ""), "\(String(describing: r.failure))")
        let tail = r.failure?.outputTail ?? []
        XCTAssertTrue(tail.contains { $0.contains("Fatal error: injected trap at op #100") }, "\(tail)")
        XCTAssertTrue(tail.contains { $0.contains("worker 0: work/work, inside the critical section of resource 0") }, "\(tail)")
    }

    func testLockOrderInversionIsADeadlockWithItsCycle() throws {
        let r = try runSandwich("""
            workload: _fault
            parameters: { mode: lock-order }
            strategies: [pthread-mutex]
            duration: 30s
            """)
        XCTAssertEqual(r.outcome, .deadlock)
        let stall = try XCTUnwrap(r.stall)
        XCTAssertEqual(stall.kind, .deadlock)
        XCTAssertEqual(stall.cycle, [
            "worker 0 holds resource 0 and waits for resource 1, held by worker 1",
            "worker 1 holds resource 1 and waits for resource 0, held by worker 0",
        ])
        XCTAssertEqual(stall.workers.map(\.phase), ["acquiringInner", "acquiringInner"])
        XCTAssertEqual(stall.workers[0].description,
                       "forward/lock 0 then 1: holding the lock of resource 0 and waiting to acquire the lock of resource 1 (nested write)")
        XCTAssertEqual(stall.workers[1].operation, "backward")
        XCTAssertGreaterThanOrEqual(stall.stalledForNs, 500_000_000)
        XCTAssertNil(r.measurement)
    }

    func testNestedSyncOntoASerialQueueIsReportedAsLibdispatchDoesIt() throws {
        // libdispatch traps on a sync onto the queue the thread is draining;
        // the record says so, with where each worker was when it trapped.
        let r = try runSandwich("""
            workload: bank
            parameters: { variant: nested-transaction }
            strategies: [serial-queue]
            duration: 30s
            """)
        XCTAssertEqual(r.outcome, .crashed)
        XCTAssertEqual(r.failure?.signal, "SIGILL")
        XCTAssertTrue(r.failure?.outputTail.contains {
            $0.contains("transfer/move, holding and waiting to enter a nested section of resource 0")
        } == true, "\(r.failure?.outputTail ?? [])")
    }

    func testNestedLockIsADeadlockOnItself() throws {
        let r = try runSandwich("""
            workload: bank
            parameters: { variant: nested-transaction }
            strategies: [pthread-mutex]
            duration: 30s
            """)
        XCTAssertEqual(r.outcome, .deadlock)
        let cycle = try XCTUnwrap(r.stall?.cycle)
        XCTAssertEqual(cycle.count, 1)
        XCTAssertTrue(cycle[0].hasSuffix("holds resource 0 and waits for resource 0, held by itself"), cycle[0])
    }

    func testEndlessLoopOutsideAnyLockIsAHang() throws {
        let r = try runSandwich("""
            workload: _fault
            parameters: { mode: hang, where: outside, after_ops: 50 }
            strategies: [pthread-mutex]
            duration: 300ms
            """)
        XCTAssertEqual(r.outcome, .hang)
        let stall = try XCTUnwrap(r.stall)
        XCTAssertEqual(stall.workers[0].description, "work/work: running outside any critical section")
        XCTAssertTrue(["finished", "atBarrier"].contains(stall.workers[1].phase), "the other worker is not running: \(stall.workers[1])")
        XCTAssertTrue(stall.summary.hasPrefix("hang: no worker completed an operation for"), stall.summary)
    }

    func testChildKilledBySIGKILL() throws {
        let r = try runSandwich("""
            workload: _fault
            parameters: { mode: kill, after_ops: 10 }
            strategies: [pthread-mutex]
            ops: 1000
            """)
        XCTAssertEqual(r.outcome, .crashed)
        XCTAssertEqual(r.failure?.signal, "SIGKILL")
        XCTAssertEqual(r.failure?.message, "the trial process died of SIGKILL")
    }

    func testChildThatPrintsGarbageInsteadOfARecord() throws {
        let r = try runSandwich("""
            workload: _fault
            parameters: { mode: garbage, after_ops: 10 }
            strategies: [pthread-mutex]
            ops: 1000
            """)
        XCTAssertEqual(r.outcome, .error)
        XCTAssertEqual(r.failure?.message,
                       "the trial process wrote something that is not a result record: \"this is not a result record\\n\"")
    }

    func testFailFastStopsAtTheFirstFailure() throws {
        let plan = try TestSupport.plan(sandwich("""
            workload: _fault
            parameters: { mode: exit, after_ops: 1 }
            strategies: [pthread-mutex]
            ops: 100
            """))
        let runner = PlanRunner(registry: .builtIn, options: RunOptions(isolation: TestSupport.childIsolation, failFast: true))
        let report = try runner.run(plan)
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .crashed, .skipped], "the trial never run is there, skipped")
        XCTAssertEqual(report.stop, RunStop(reason: .failFast, trial: "fault/pthread-mutex/t2/r0"))
        XCTAssertTrue(report.interrupted)
        XCTAssertEqual(report.exitCode, .trialFailures, "the failure's code, not a signal's")
        XCTAssertEqual(report.trials[2].failure?.message,
                       "not run: the run was stopped at the first failure (--fail-fast): fault/pthread-mutex/t2/r0")
        XCTAssertEqual(report.trials[2].rerunCommand, "stressbench run test.yaml --only after/pthread-mutex/t2/r0 --seed \(report.trials[2].trial.seed)")
        XCTAssertTrue(TableReport.render(report).hasSuffix(
            "1 passed, 1 crashed, 1 skipped (stopped at the first failure (--fail-fast): fault/pthread-mutex/t2/r0); exit code 3\n"))
    }

    func testStreamKeepsEveryFinishedRecord() throws {
        let dir = try TestSupport.temporaryDirectory()
        let stream = dir.appendingPathComponent("trials.ndjson").path
        let plan = try TestSupport.plan(sandwich("""
            workload: _fault
            parameters: { mode: kill, after_ops: 1 }
            strategies: [pthread-mutex]
            ops: 100
            """))
        let runner = PlanRunner(registry: .builtIn, options: RunOptions(isolation: TestSupport.childIsolation, streamPath: stream))
        let report = try runner.run(plan)
        let lines = try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        let decoded = try lines.map { try ResultCoding.decoder().decode(TrialResult.self, from: Data($0.utf8)) }
        XCTAssertEqual(decoded, report.trials)
    }
}
