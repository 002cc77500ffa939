import Foundation
import StressKit
import StressKitTestSupport
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

    /// Runs the sandwich through `stressbench-fixtures` (the command line with
    /// `_fault` registered) with `--json`,
    /// `--csv` and `--ndjson`, parses all three, checks the trials around the
    /// fault are intact in each and the three agree, and returns the fault's record.
    private func runSandwich(_ fault: String, options: [String] = [], expectedStatus: Int32 = 3) throws -> TrialResult {
        let run = try TestSupport.cliRun(sandwich(fault), options: options, executable: TestSupport.fixturesPath)
        XCTAssertEqual(run.status, expectedStatus, run.stdout + run.stderr)
        let report = try run.report()
        XCTAssertEqual(report.trials.count, 3)
        XCTAssertEqual(report.trials[0].outcome, .passed)
        XCTAssertEqual(report.trials[0].measurement?.totalOps, 4000, "the trial before is intact")
        XCTAssertEqual(report.trials[2].outcome, .passed)
        XCTAssertEqual(report.trials[2].measurement?.totalOps, 4000, "the trial after ran")
        XCTAssertEqual(report.exitCode.rawValue, expectedStatus)

        XCTAssertEqual(try run.streamed(), report.trials, "the NDJSON stream has every record, as the JSON file does")
        let rows = try run.csvRows()
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(rows.map { $0["trial_id"] }, report.trials.map(\.trial.id))
        XCTAssertEqual(rows.map { $0["outcome"] }, report.trials.map(\.outcome.rawValue))
        XCTAssertEqual([rows[0]["total_ops"], rows[2]["total_ops"]], ["4000", "4000"])
        XCTAssertEqual(rows[1]["failure"], report.trials[1].failure?.message ?? "")

        let fault = report.trials[1]
        XCTAssertEqual(fault.rerunCommand, "stressbench-fixtures run \(run.plan) --only \(fault.trial.id) --seed \(fault.trial.seed)")
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
        XCTAssertGreaterThanOrEqual(stall.stalledForNanoseconds, 500_000_000)
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
        // Reported as the stall of the whole trial, or of worker 0 while the
        // other still worked, whichever the watchdog saw first.
        XCTAssertTrue(stall.summary.hasPrefix("hang: no worker completed an operation for")
                      || stall.summary.hasPrefix("hang: worker 0 (work/work: running outside any critical section)"), stall.summary)
    }

    func testAStartStaggerLongerThanTheStallLimitIsNoStall() throws {
        // With this seed each worker sleeps about 1.26 s in its start stagger,
        // after the barrier has opened, with a stall limit of 0.5 s. That pause
        // is the harness's own (the worker is between operations): it was
        // once reported as a hang, and before that as a bogus deadlock.
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: counter
                strategies: [pthread-mutex, actor]
                threads: 1
                ops: 100
                warmup: 0s
                deadlock_after: 500ms
                seed: 4
                fuzz: { stagger: 2s }
            """)
        XCTAssertEqual(report.trials.map(\.trial.strategy), ["pthread-mutex", "actor"])
        for r in report.trials {
            XCTAssertEqual(r.outcome, .passed, WorkloadTestSupport.describe(r))
        }
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
        let run = try TestSupport.cliRun(sandwich("""
            workload: _fault
            parameters: { mode: exit, after_ops: 1 }
            strategies: [pthread-mutex]
            ops: 100
            """), options: ["--fail-fast"], executable: TestSupport.fixturesPath)
        XCTAssertEqual(run.status, 3, "the failure's code, not a signal's")
        let report = try run.report()
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .crashed, .skipped], "the trial never run is there, skipped")
        XCTAssertEqual(report.stop, RunStop(reason: .failFast, trial: "fault/pthread-mutex/t2/r0"))
        XCTAssertTrue(report.interrupted)
        XCTAssertEqual(report.trials[2].failure?.message,
                       "not run: the run was stopped at the first failure (--fail-fast): fault/pthread-mutex/t2/r0")
        XCTAssertEqual(report.trials[2].rerunCommand, "stressbench-fixtures run \(run.plan) --only after/pthread-mutex/t2/r0 --seed \(report.trials[2].trial.seed)")
        XCTAssertEqual(try run.streamed(), report.trials)
        XCTAssertEqual(try run.csvRows().map { $0["outcome"] }, ["passed", "crashed", "skipped"])
        XCTAssertTrue(run.stdout.hasSuffix(
            "1 passed, 1 crashed, 1 skipped (stopped at the first failure (--fail-fast): fault/pthread-mutex/t2/r0); exit code 3\n"), run.stdout)
    }

    func testChildThatExitsNonZeroAfterItsRecordIsACrashWithTheRecordKept() throws {
        let r = try runSandwich("""
            workload: _fault
            parameters: { mode: exit-after-record, after_ops: 10 }
            strategies: [pthread-mutex]
            ops: 1000
            """)
        XCTAssertEqual(r.outcome, .crashed)
        XCTAssertEqual(r.failure?.exitStatus, 5)
        XCTAssertEqual(r.failure?.message, "the trial process exited with status 5 after writing its record")
        XCTAssertEqual(r.measurement?.totalOps, 2000, "what it measured is kept")
    }

    func testParentKilledBySIGKILLLeavesEveryFinishedTrialAndNoChild() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("killed.yaml").path
        try """
            defaults: { threads: 1, warmup: 0s, strategies: [pthread-mutex] }
            experiments:
              - { name: one, workload: counter, ops: 1000 }
              - { name: two, workload: bank, ops: 1000 }
              - { name: long, workload: counter, duration: 60s }
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let stream = dir.appendingPathComponent("out.ndjson").path
        let parent = Process()
        parent.executableURL = URL(fileURLWithPath: TestSupport.stressbenchPath)
        parent.arguments = ["run", plan, "--ndjson", stream, "--json", dir.appendingPathComponent("out.json").path, "-q"]
        parent.standardOutput = FileHandle.nullDevice
        parent.standardError = FileHandle.nullDevice
        try parent.run()
        defer { if parent.isRunning { kill(parent.processIdentifier, SIGKILL) } }

        // Wait (generous limits, not speed checks) for the two short trials'
        // records, then for the long trial's process.
        for _ in 0..<1200 {
            let lines = (try? String(contentsOfFile: stream, encoding: .utf8))?.split(separator: "\n").count ?? 0
            if lines >= 2 { break }
            usleep(50_000)
        }
        var child: pid_t?
        for _ in 0..<1200 where child == nil {
            child = ProcessTable.children(of: parent.processIdentifier).first
            if child == nil { usleep(50_000) }
        }
        let trialProcess = try XCTUnwrap(child, "the long trial's process never started")
        XCTAssertEqual(try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n").count, 2, "two trials finished first")

        kill(parent.processIdentifier, SIGKILL)
        // Not Process.waitUntilExit: it would also wait for a surviving trial
        // process, the very thing this test must see fail.
        for _ in 0..<600 where ProcessTable.isAlive(parent.processIdentifier) || ProcessTable.isAlive(trialProcess) { usleep(50_000) }
        XCTAssertFalse(ProcessTable.isAlive(trialProcess), "the trial process died with its parent, well before its 60 s")
        parent.waitUntilExit()
        XCTAssertEqual(parent.terminationReason, .uncaughtSignal)
        let lines = try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try ResultCoding.decoder().decode(TrialResult.self, from: Data($0.utf8)) }
        XCTAssertEqual(records.map(\.trial.id), ["one/pthread-mutex/t1/r0", "two/pthread-mutex/t1/r0"])
        XCTAssertEqual(records.map(\.outcome), [.passed, .passed])
        XCTAssertEqual(records.map { $0.measurement?.totalOps }, [1000, 1000])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.json").path))
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
        let runner = PlanRunner(registry: TestSupport.registry, options: RunOptions(isolation: TestSupport.childIsolation, streamPath: stream))
        let report = try runner.run(plan)
        let lines = try String(contentsOfFile: stream, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        let decoded = try lines.map { try ResultCoding.decoder().decode(TrialResult.self, from: Data($0.utf8)) }
        XCTAssertEqual(decoded, report.trials)
    }
}
