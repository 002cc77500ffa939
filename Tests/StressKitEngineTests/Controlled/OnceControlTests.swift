@testable import StressCore
import StressKitTestSupport
import XCTest

/// A once-token under control: its waiters are blocked in the model until
/// its body has run, wherever the schedule puts them, so control stays full.
final class OnceControlTests: XCTestCase {
    /// Before, the token was freed in the model before it opened, with a
    /// scheduling point between: a waiter scheduled there went on to wait
    /// for it in the kernel while the runner waited for its turn, and the
    /// trial was `partial` (an escape, noticed after 20 ms of wall time).
    func testWaitersOfAOnceTokenStayUnderControlAtEveryPoint() throws {
        for policy in [FuzzProfile.yield, .chaos, .pct] {
            for seed in UInt64(1)...12 {
                let outcome = ControlledTrialSupport.run(
                    "test-once-wait", strategy: "unsynchronized",
                    settings: ControlledTrialSupport.settings(threads: 3, seed: seed, fuzz: policy, ops: 1))
                let output = try XCTUnwrap(outcome.output, "\(policy) seed \(seed): \(String(describing: outcome.error)) \(outcome.stall?.summary ?? "")")
                XCTAssertEqual(output.violations.count, 0, "\(policy) seed \(seed): \(String(describing: outcome.firstMessage))")
                XCTAssertEqual(output.schedule.controlled, .full, "\(policy) seed \(seed): \(output.schedule.escapes ?? [])")
            }
        }
    }
}
