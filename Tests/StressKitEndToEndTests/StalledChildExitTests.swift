import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A trial process whose watchdog found a stall writes the record and ends
/// itself at once (its workers stay stuck), rather than wait for the parent
/// to end it: the parent reads that exit as the stall's, not as a crash.
final class StalledChildExitTests: XCTestCase {
    private func stalledRecord() throws -> [UInt8] {
        let spec = Synthetic.trial(strategy: "pthread-mutex", repetition: 0, opsPerSecond: 1, latencyNs: 10).trial
        let stall = StallReport(kind: .deadlock, stalledForNs: 1, workers: [], cycle: ["worker 0 waits for itself"], summary: "deadlock: worker 0")
        return Array(try ResultCoding.encoder(pretty: false).encode(LocalTrial.stalledResult(spec, stall)))
    }

    func testAStallRecordFollowedByTheStallExitIsTheStall() throws {
        let spec = Synthetic.trial(strategy: "pthread-mutex", repetition: 0, opsPerSecond: 1, latencyNs: 10).trial
        let capture = ChildCapture(termination: .exited(TrialChild.stalledExitStatus), result: try stalledRecord(),
                                   outputTail: Array("a line the trial printed\n".utf8))
        let result = PlanRunner.interpret(capture, spec: spec)
        XCTAssertEqual(result.outcome, .deadlock)
        XCTAssertEqual(result.stall?.cycle, ["worker 0 waits for itself"])
        XCTAssertEqual(result.failure?.outputTail, ["a line the trial printed"], "its output is kept, as for a child the parent ended")
    }

    /// The same status after a record of no stall is no stall's exit: a crash
    /// on the way out, with the figures kept.
    func testTheStallExitAfterAnOrdinaryRecordIsACrash() throws {
        let trial = Synthetic.trial(strategy: "pthread-mutex", repetition: 0, opsPerSecond: 1, latencyNs: 10)
        let capture = ChildCapture(termination: .exited(TrialChild.stalledExitStatus),
                                   result: Array(try ResultCoding.encoder(pretty: false).encode(trial)), outputTail: [])
        let result = PlanRunner.interpret(capture, spec: trial.trial)
        XCTAssertEqual(result.outcome, .crashed)
        XCTAssertEqual(result.failure?.exitStatus, Int(TrialChild.stalledExitStatus))
    }

    /// A real deadlocked trial process ends itself with the stall's status:
    /// it is not left for the parent to end. (The inversion runs free, as in
    /// `FaultInjectionTests`; the deadline is the automatic timeout of its
    /// 30 s window, so a loaded machine that delays the deadlock cannot fail
    /// the test.)
    func testADeadlockedTrialProcessEndsItself() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - { workload: _fault, parameters: { mode: lock-order }, strategies: [pthread-mutex], threads: 2, duration: 30s, warmup: 0, deadlock_after: 300ms }
            """)
        let spec = try XCTUnwrap(PlanRunner(registry: TestSupport.registry, options: RunOptions()).selectedTrials(of: plan).first)
        let capture = try ChildProcess.run(executable: TestSupport.fixturesPath, arguments: ["_trial"],
                                           environment: [TrialChild.parentVariable: String(getpid())],
                                           input: Array(try ResultCoding.encoder(pretty: false).encode(spec)), timeoutNs: 70_000_000_000)
        XCTAssertEqual(capture.termination, .exited(TrialChild.stalledExitStatus), String(decoding: capture.outputTail, as: UTF8.self))
        XCTAssertFalse(capture.killedAfterRecord)
        XCTAssertEqual(PlanRunner.interpret(capture, spec: spec).outcome, .deadlock)
    }
}
