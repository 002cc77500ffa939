@testable import StressCore
import Dispatch
import StressKitTestSupport
import XCTest

/// Shrinking stays inside the trial's time: it never starts past the
/// moment the trial must hand its record over, and its candidate runs stop
/// at its bound. (A trial whose failing run was shrunk past its timeout lost
/// the failure and ended a bare `timeout`, its record showing the schedule
/// of the candidate that was running: the main-queue trials of the bug zoo,
/// whose every section is a hop to the main thread, did so on a loaded
/// machine.)
final class ShrinkBoundTests: XCTestCase {
    private func settings(shrinkNs: UInt64, latestReportNs: UInt64?) -> TrialSettings {
        var settings = ControlledTrialSupport.settings(threads: 2, seed: 7, fuzz: .pct)
        settings.shrinkNs = shrinkNs
        settings.latestStallReportNs = latestReportNs
        return settings
    }

    func testTheBudgetIsTheBoundCutToTheTimeBeforeTheRecordIsDue() {
        let second: UInt64 = 1_000_000_000
        XCTAssertEqual(ScheduleSearch.shrinkBudget(settings(shrinkNs: 5 * second, latestReportNs: nil), elapsedNs: 9 * second),
                       5 * second)
        XCTAssertEqual(ScheduleSearch.shrinkBudget(settings(shrinkNs: 5 * second, latestReportNs: 20 * second), elapsedNs: second),
                       5 * second)
        XCTAssertEqual(ScheduleSearch.shrinkBudget(settings(shrinkNs: 5 * second, latestReportNs: 4 * second), elapsedNs: second),
                       3 * second)
        XCTAssertEqual(ScheduleSearch.shrinkBudget(settings(shrinkNs: 5 * second, latestReportNs: 4 * second), elapsedNs: 6 * second),
                       0)
    }

    /// The record is due at once (1 ns after the start): the lost update is
    /// reported as found, unshrunk, rather than shrunk into the timeout.
    func testAFailureFoundWhenTheRecordIsDueIsReportedUnshrunk() throws {
        let outcome = ControlledTrialSupport.run("counter", strategy: "unsynchronized",
                                                 settings: settings(shrinkNs: 20_000_000_000, latestReportNs: 1))
        let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
        XCTAssertGreaterThan(output.violations.count, 0)
        XCTAssertNil(output.shrink)
        // The same trial with time to spare is shrunk (the control).
        let spare = ControlledTrialSupport.run("counter", strategy: "unsynchronized",
                                               settings: settings(shrinkNs: 20_000_000_000, latestReportNs: nil))
        XCTAssertNotNil(try XCTUnwrap(spare.output, "\(String(describing: spare.error))").shrink)
    }

    /// A candidate run whose bound has passed stops as at the end of its
    /// window: a correct trial allowed a billion decisions ends at once.
    func testACandidateStopsOnceTheShrinksBoundHasPassed() throws {
        var long = ControlledTrialSupport.settings(threads: 2, seed: 7, fuzz: .pct, maxDecisions: 1_000_000_000)
        long = ScheduleSearch.bounded(long, until: MonotonicClock.now())
        let outcome = ControlledTrialSupport.run("counter", strategy: "mutex", settings: long)
        let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
        XCTAssertEqual(output.violations.count, 0)
        XCTAssertLessThan(try XCTUnwrap(output.schedule.decisions), 1_000_000_000)
    }

    /// A candidate is not waited for past the shrink's bound, whatever its own
    /// limit: one stopped at the bound runs on uncontrolled, and one that then
    /// deadlocks in the kernel never ends. (The job board's queue-lock-order
    /// trials, with a 5 s timeout, were killed waiting for such a candidate,
    /// and their deadlock, found at decision 101, was lost.)
    func testARunIsNotWaitedForPastTheSearchsDeadline() {
        let gate = DispatchSemaphore(value: 0)
        let execute = ControlledExecution { _, _ in
            gate.wait()
            throw EngineError("let go")
        }
        // Only if the wait were not cut short: then the run ends, let go.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { gate.signal() }
        execute.waitNoLater(than: MonotonicClock.now())
        let cut = execute(settings(shrinkNs: 0, latestReportNs: nil), limitNs: .max)
        gate.signal()
        guard case .abandoned = cut else { return XCTFail("waited for the run past the deadline: \(cut)") }

        // Without a deadline, a run is waited for until it ends.
        execute.waitNoLater(than: nil)
        gate.signal()
        let ended = execute(settings(shrinkNs: 0, latestReportNs: nil), limitNs: .max)
        guard case .failedToRun(let why) = ended else { return XCTFail("not waited for: \(ended)") }
        XCTAssertTrue(why.contains("let go"), why)
    }
}
