import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import XCTest

/// RunOptions from Swift: durations are `Duration`s, kept as the nanoseconds
/// the engine counts, and a zero or negative one is refused before anything runs.
final class RunOptionsTests: XCTestCase {
    func testTheDurationsAreTheNanosecondsTheRunnerReads() {
        var options = RunOptions(isolation: .inProcess, timeout: .seconds(3), deadlockAfter: .milliseconds(250))
        options.duration = .microseconds(1500)
        XCTAssertEqual(options.timeoutNs, 3_000_000_000)
        XCTAssertEqual(options.deadlockAfterNs, 250_000_000)
        XCTAssertEqual(options.durationNs, 1_500_000)
        XCTAssertEqual(options.timeout, .seconds(3))
        XCTAssertEqual(options.deadlockAfter, .milliseconds(250))
        XCTAssertEqual(options.duration, .microseconds(1500))
        options.timeout = nil
        XCTAssertNil(options.timeoutNs, "nil keeps the plan's")
        XCTAssertNil(options.overrideProblem)
    }

    func testAZeroOrNegativeDurationIsRefusedBeforeAnythingRuns() {
        let plan = "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 1\n    ops: 100\n"
        for (options, name) in [
            (RunOptions(isolation: .inProcess, timeout: .zero), "timeout"),
            (RunOptions(isolation: .inProcess, deadlockAfter: .seconds(-1)), "deadlockAfter"),
            ({ var o = RunOptions(isolation: .inProcess); o.duration = .zero; return o }(), "duration"),
        ] {
            XCTAssertEqual(options.overrideProblem, "RunOptions.\(name) must be longer than zero")
            XCTAssertThrowsError(try PlanRunner.run(yaml: plan, registry: .builtIn, options: options)) { error in
                XCTAssertEqual("\(error)", "RunOptions.\(name) must be longer than zero")
            }
        }
    }
}
