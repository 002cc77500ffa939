import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Expected outcomes end to end: the exit code and the table of a
/// `stressbench run` whose plan says `expect:`.
final class ExpectationCommandLineTests: XCTestCase {
    /// A nested lock deadlocks on itself at once, every time; a recursive
    /// lock re-enters: both outcomes are certain, so the test cannot flake.
    private let nestedTransaction = """
        experiments:
          - workload: bank
            parameters: { variant: nested-transaction }
            strategies: [pthread-mutex, recursive-lock]
            threads: 1
            duration: 100ms
            warmup: 0
            deadlock_after: 300ms
            EXPECT
        """

    func testAnExpectedDeadlockExitsZeroAndSaysSo() throws {
        let run = try TestSupport.cliRun(nestedTransaction.replacingOccurrences(of: "EXPECT", with: "expect: { pthread-mutex: deadlock }"))
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("deadlock (expected)"), run.stdout)
        XCTAssertTrue(run.stdout.contains("pthread-mutex/t1/r0: deadlock: caught, as expected"), run.stdout)
        let report = try run.report()
        XCTAssertEqual(report.trials.map(\.trial.expect), [[.deadlock], nil])
        XCTAssertEqual(report.trials.map(\.expectation), [.caught, .passed])
    }

    func testAnExpectedFailureThatPassedExitsOne() throws {
        let run = try TestSupport.cliRun(nestedTransaction.replacingOccurrences(
            of: "EXPECT", with: "expect: { pthread-mutex: deadlock, recursive-lock: deadlock }"))
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("recursive-lock/t1/r0: passed, but the plan expects deadlock"), run.stdout)
    }
}
