import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// Trials in child processes: a trap or a hang in one trial becomes that
/// trial's record and the run goes on.
final class IsolationTests: XCTestCase {
    override func setUp() {
        super.setUp()
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: TestSupport.stressbenchPath),
                      "swift test builds the stressbench binary next to the tests")
    }

    func testTrapAndHangAreRecordedAndTheRunGoesOn() throws {
        let report = try TestSupport.runIsolated("""
            defaults: { threads: 2, warmup: 0s }
            experiments:
              - name: before
                workload: bank
                strategies: [mutex]
                ops: 2000
              - name: trap
                workload: _fault
                parameters: { mode: trap, after_ops: 50 }
                strategies: [pthread-mutex]
                ops: 1000
              - name: hang
                workload: _fault
                parameters: { mode: stop, after_ops: 10 }   # SIGSTOP: the watchdog stops too
                strategies: [pthread-mutex]
                ops: 1000
                timeout: 2s
                deadlock_after: 1s
              - name: after
                workload: counter
                strategies: [actor]
                ops: 2000
            """)
        XCTAssertEqual(report.trials.map(\.trial.experiment), ["before", "trap", "hang", "after"])
        XCTAssertEqual(report.trials.map(\.outcome), [.passed, .crashed, .timeout, .passed])

        let trap = report.trials[1]
        XCTAssertNil(trap.measurement, "a crashed trial has no figures")
        let signal = try XCTUnwrap(trap.failure?.signal)
        XCTAssertTrue(["SIGILL", "SIGTRAP"].contains(signal), signal)
        XCTAssertTrue(trap.failure?.outputTail.contains { $0.contains("Fatal error: injected trap at op #50") } == true,
                      "\(trap.failure?.outputTail ?? [])")

        let hang = report.trials[2]
        XCTAssertNil(hang.measurement)
        XCTAssertEqual(hang.failure?.message, "did not finish within its 2s timeout; killed")

        XCTAssertEqual(report.trials[0].measurement?.totalOps, 4000, "the trial before is intact")
        XCTAssertEqual(report.trials[3].measurement?.totalOps, 4000, "the trial after ran")
        XCTAssertEqual(report.exitCode, .trialFailures)
    }

    func testAbruptExitAndKillAreCrashes() throws {
        let report = try TestSupport.runIsolated("""
            defaults: { threads: 1, ops: 100, warmup: 0s, strategies: [pthread-mutex] }
            experiments:
              - name: exit
                workload: _fault
                parameters: { mode: exit, after_ops: 5 }
              - name: kill
                workload: _fault
                parameters: { mode: kill, after_ops: 5 }
            """)
        XCTAssertEqual(report.trials.map(\.outcome), [.crashed, .crashed])
        XCTAssertEqual(report.trials[0].failure?.exitStatus, 7)
        XCTAssertEqual(report.trials[0].failure?.message, "the trial process exited with status 7 and no result")
        XCTAssertEqual(report.trials[1].failure?.signal, "SIGKILL")
    }

    func testChildResultsMatchInProcessResults() throws {
        let yaml = """
            experiments:
              - workload: counter
                strategies: [pthread-mutex, actor]
                threads: 2
                ops: 5000
                seed: 3
            """
        let child = try TestSupport.runIsolated(yaml)
        let local = try TestSupport.runInProcess(yaml)
        XCTAssertEqual(child.trials.map(\.trial), local.trials.map(\.trial))
        XCTAssertEqual(child.trials.map(\.outcome), [.passed, .passed])
        XCTAssertEqual(child.trials.map { $0.measurement?.totalOps }, local.trials.map { $0.measurement?.totalOps })
    }
}
