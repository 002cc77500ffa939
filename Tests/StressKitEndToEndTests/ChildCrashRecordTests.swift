import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Crashes in child processes: what the record of a trial that died keeps of
/// its cause.
final class ChildCrashRecordTests: XCTestCase {
    private func runIsolated(_ parameters: String, threads: Int) throws -> TrialResult {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: _fault
                parameters: \(parameters)
                strategies: [pthread-mutex]
                threads: [\(threads)]
                ops: 2000
                warmup: 0
            """, file: "crash.yaml", registry: TestSupport.registry, options: RunOptions(isolation: TestSupport.childIsolation))
        return try XCTUnwrap(report.trials.first)
    }

    /// A trap among a hundred workers: the message and where the trapping
    /// worker was are in the record and in the table, not a hundred times
    /// "finished".
    func testATrapAmongAHundredWorkersKeepsItsCause() throws {
        let r = try runIsolated("{ mode: trap, where: critical-section, after_ops: 100 }", threads: 100)
        XCTAssertEqual(r.outcome, .crashed, WorkloadTestSupport.describe(r))
        let tail = r.failure?.outputTail ?? []
        XCTAssertLessThanOrEqual(tail.count, CrashOutput.recordLimit)
        XCTAssertTrue(tail.contains { $0.contains("Fatal error: injected trap at op #100") }, "\(tail)")
        XCTAssertTrue(tail.contains { $0.hasPrefix("stressbench: the trial process got ") }, "\(tail)")
        XCTAssertTrue(tail.contains("stressbench:   worker 0: work/work, inside the critical section of resource 0"), "\(tail)")
        XCTAssertTrue(r.crashCause?.hasSuffix("Fatal error: injected trap at op #100") == true, "\(String(describing: r.crashCause))")
        let table = TableReport.details(r, planFile: "crash.yaml")
        XCTAssertTrue(table.contains("Fatal error: injected trap at op #100\n"), table)
        XCTAssertTrue(table.contains("| stressbench: the trial process got SIGILL; where each worker was:"), table)
        XCTAssertTrue(table.contains("| stressbench:   worker 0: work/work, inside the critical section of resource 0"), table)
    }

    /// A trap with no message is called a failed check, of the standard
    /// library's or the author's, without telling the author to change theirs.
    func testABareTrapIsAFailedCheckWithNoMessage() throws {
        let r = try runIsolated("{ mode: overflow, where: outside, after_ops: 100 }", threads: 4)
        XCTAssertEqual(r.outcome, .crashed, WorkloadTestSupport.describe(r))
        let message = r.failure?.message ?? ""
        XCTAssertTrue(message.hasPrefix("the trial process died of SIGILL; the process trapped without a message: a failed check"), message)
        XCTAssertTrue(message.contains("an arithmetic overflow"), message)
        XCTAssertTrue(message.contains("a data race on an array or dictionary often ends in one"), message)
        XCTAssertFalse(message.contains("fatalError"), "no advice to the author about their own checks: \(message)")
        XCTAssertNil(r.crashCause)
    }

    /// With the runtime's backtracer asked for, the crash handler hands the
    /// signal on to it: its report of the crashed thread, whose first frame
    /// names the failed check, is kept and becomes the cause.
    func testTheRuntimesBacktracerStillRunsWhenAskedFor() throws {
        var options = RunOptions(isolation: TestSupport.childIsolation)
        options.childEnvironment["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none"
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: _fault
                parameters: { mode: overflow, where: outside, after_ops: 100 }
                strategies: [pthread-mutex]
                threads: [2]
                ops: 2000
                warmup: 0
            """, file: "crash.yaml", registry: TestSupport.registry, options: options)
        let r = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(r.outcome, .crashed, WorkloadTestSupport.describe(r))
        let tail = r.failure?.outputTail ?? []
        XCTAssertTrue(tail.contains { $0.hasPrefix("stressbench: the trial process got SIGILL") }, "our report first: \(tail)")
        XCTAssertTrue(tail.contains { $0.hasPrefix("Thread ") && $0.hasSuffix(" crashed:") }, "\(tail)")
        XCTAssertTrue(tail.contains { $0.contains("Swift runtime failure: arithmetic overflow") }, "\(tail)")
        XCTAssertTrue(r.failure?.message.hasPrefix("the trial process died of SIGILL: Swift runtime failure: arithmetic overflow") == true,
                      r.failure?.message ?? "")
    }
}
