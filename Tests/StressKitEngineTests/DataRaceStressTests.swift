import Foundation
@testable import StressCore
import StressKitTestSupport
import StressKitTesting
import XCTest

/// `StressTest` in a ThreadSanitizer build (`swift test --sanitize=thread`):
/// a race is a violation of its trial, with both stacks in the failure (each
/// trial in a child process: `.isolated()`); a correct strategy shows none. Skipped in a
/// build without TSan, where there is nothing to see races with.
final class DataRaceStressTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(ThreadSanitizer.isActive, "needs a ThreadSanitizer build: swift test --sanitize=thread")
    }

    /// The counter without a lock races on every increment: TSan reports it
    /// whether or not an update is lost on this run, so the trial is violated
    /// every time, and the failure shows both stacks in the workload's file.
    func testAnIsolatedTrialsRaceFailsTheTestWithBothStacks() throws {
        let report = try StressTest(workload: "counter").strategies("unsynchronized").threads(2).ops(2_000).warmup(.zero)
            .seed(37).isolated(in: self).run()
        let failure = try XCTUnwrap(report.failure, report.summary)
        let race = try XCTUnwrap(failure.trial.violations.samples.first { $0.kind == .dataRace }, failure.description)
        XCTAssertEqual(race.accesses?.count, 2)
        for access in race.accesses ?? [] {
            XCTAssertNotNil(access.worker, "\(access)")
            XCTAssertTrue(access.frames.first?.contains("CounterWorkload") == true, "\(access.frames)")
        }
        XCTAssertTrue(failure.description.contains("previous "), failure.description)
    }

    /// A correct strategy, the harness's own code included: no race.
    func testCorrectStrategiesShowNoRace() throws {
        let report = try StressTest(workload: "counter").strategies("mutex", "pthread-mutex", "spinlock", "serial-queue")
            .threads(4).ops(2_000).warmup(.zero).seed(39).isolated(in: self).run()
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(trial.violations.samples.first?.stackLines ?? [])")
        }
    }
}
