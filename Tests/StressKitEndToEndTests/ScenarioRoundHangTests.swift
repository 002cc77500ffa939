@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A scenario whose round never ends, run in a child process: the watchdog
/// names every role.
final class ScenarioRoundHangTests: XCTestCase {
    /// A round that never completes because a role spins for ever is a
    /// `hang`, reported while the trial runs, naming the spinning role and
    /// the one that waits for the round to end.
    func testARoundWhoseRoleNeverReturnsIsAHangNamingEachRole() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - scenario: _hang-in-round
                parameters: { after_rounds: 10 }
                strategies: [pthread-mutex]
                duration: 30s
                warmup: 0
                deadlock_after: 300ms
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .hang, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertEqual(stall.kind, .hang)
        XCTAssertEqual(stall.workers.map(\.operation), ["spinner", "bystander"], "\(stall.workers)")
        XCTAssertEqual(stall.workers.last?.phase, "atBarrier", "\(stall.workers)")
        XCTAssertEqual(stall.workers.last?.description, "bystander: waiting at the round's barrier for the other roles")
        XCTAssertTrue(stall.summary.contains("spinner/spin: running"), stall.summary)
        XCTAssertLessThan(stall.stalledForNanoseconds, 30_000_000_000, "reported by the watchdog, not at the end of the window")
    }
}
