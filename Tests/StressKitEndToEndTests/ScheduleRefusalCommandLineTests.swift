import Foundation
import StressKitTestSupport
import XCTest

/// The command line's refusals around controlled scheduling: each is exit 2
/// with a message saying why, before any trial runs.
final class ScheduleRefusalCommandLineTests: XCTestCase {
    private func plan(_ text: String) throws -> String {
        let path = try TestSupport.temporaryDirectory().appendingPathComponent("plan.yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAPlanThatControlsAnActorIsAPlanError() throws {
        let path = try plan("experiments:\n  - workload: counter\n    schedule: controlled\n    strategies: [actor]\n")
        let r = try TestSupport.cli(["validate", path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("plan.yaml:4:18: experiments[0].strategies[0]: strategy 'actor' cannot run under schedule: controlled"),
                      r.stderr)
    }

    func testScheduleControlledOnTheCommandLineIsRefusedForALitmusTest() throws {
        let path = try plan("experiments:\n  - scenario: store-buffering\n    strategies: [unsynchronized]\n    duration: 10ms\n    warmup: 0\n")
        let r = try TestSupport.cli(["run", path, "--schedule", "controlled", "-q"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--schedule controlled cannot run trial store-buffering/unsynchronized/t2/r0: "
                                        + "scenario 'store-buffering' is a memory-model litmus test"), r.stderr)
        XCTAssertTrue(r.stdout.isEmpty, "nothing ran: \(r.stdout)")
    }

    func testReplayRefusesAScheduleThatNamesAWorkerTheTrialLacks() throws {
        let path = try plan("experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 2\n    ops: 10\n    warmup: 0\n")
        let r = try TestSupport.cli(["replay", path, "--only", "counter/mutex/t2/r0", "--schedule", "w0:1,w11:1", "--times", "1"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--schedule: run 2 of the schedule, 'w11:1', names worker 11, but the trial has 2 worker(s) (w0 to w1), "
                                        + "the main thread (w2) and 8 queue workers (w3 to w10)"),
                      r.stderr)
        let garbled = try TestSupport.cli(["replay", path, "--only", "counter/mutex/t2/r0", "--schedule", "w0:x"])
        XCTAssertEqual(garbled.status, 2, garbled.stderr)
        XCTAssertTrue(garbled.stderr.contains("run 1 of the schedule, 'w0:x', is not w<worker>:<count>"), garbled.stderr)
    }
}
