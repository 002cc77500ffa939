import Foundation
@testable import StressKit
import XCTest

/// What a crashed trial's record keeps of its process's output, and how it
/// explains the crash: the runtime's message and the crash report's first
/// lines, whatever came after them; an explanation that says what the
/// evidence shows.
final class CrashRecordTests: XCTestCase {
    // MARK: - The lines kept

    /// A hundred workers' lines of the crash report, after the runtime's message.
    private func crashOutput(workers: Int, busy: Set<Int> = [0]) -> [UInt8] {
        var lines = (0..<30).map { "progress line \($0)" }
        lines.append("StressKitFixtures/FaultInjectionWorkload.swift:82: Fatal error: injected trap at op #100")
        lines.append("Current stack trace:")
        lines += (0..<12).map { "\($0)    libswiftCore.so    0x00007f0d4275f130 swift_reportError + 33" }
        lines.append("stressbench: the trial process got SIGILL; where each worker was:")
        for w in 0..<workers {
            lines.append("stressbench:   worker \(w): " + (busy.contains(w) ? "work/work, inside the critical section of resource 0" : "finished"))
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    func testRunsOfWorkersInAPhaseOfTheHarnessAreOneLine() {
        let lines = CrashOutput.condensed(String(decoding: crashOutput(workers: 100, busy: [0, 50]), as: UTF8.self))
        XCTAssertEqual(Array(lines.suffix(5)), [
            "stressbench: the trial process got SIGILL; where each worker was:",
            "stressbench:   worker 0: work/work, inside the critical section of resource 0",
            "stressbench:   workers 1 to 49: finished",
            "stressbench:   worker 50: work/work, inside the critical section of resource 0",
            "stressbench:   workers 51 to 99: finished",
        ])
        XCTAssertTrue(lines.contains("(13 stack-trace lines omitted)"), "\(lines)")
        XCTAssertEqual(CrashOutput.condensed("stressbench:   worker 3: role-3/nothing, at a start barrier\nstressbench:   worker 4: role-4/nothing, at a start barrier\n"),
                       ["stressbench:   workers 3 to 4: at a start barrier"], "the site of a worker at a barrier says nothing")
    }

    func testTheRecordKeepsTheMessageAndTheReportsFirstLines() {
        let kept = CrashOutput.kept(crashOutput(workers: 300, busy: Set(0..<300)))
        XCTAssertLessThanOrEqual(kept.count, CrashOutput.recordLimit)
        XCTAssertTrue(kept.contains("StressKitFixtures/FaultInjectionWorkload.swift:82: Fatal error: injected trap at op #100"), "\(kept)")
        XCTAssertTrue(kept.contains("stressbench: the trial process got SIGILL; where each worker was:"), "\(kept)")
        XCTAssertTrue(kept.contains("stressbench:   worker 0: work/work, inside the critical section of resource 0"), "\(kept)")
        XCTAssertEqual(kept.last, "stressbench:   worker 299: work/work, inside the critical section of resource 0", "the last lines too")
        XCTAssertTrue(kept.contains { $0.hasSuffix("lines omitted)") }, "a gap says how many lines it left out: \(kept)")
        XCTAssertFalse(kept.contains("progress line 29") && kept.contains("progress line 0"), "the progress before is what gives way")

        let shown = CrashOutput.select(kept, limit: 8)
        XCTAssertEqual(shown.count, 8)
        XCTAssertTrue(shown.contains { $0.contains("Fatal error: injected trap") }, "the table shows the message: \(shown)")
        XCTAssertTrue(shown.contains("stressbench: the trial process got SIGILL; where each worker was:"), "\(shown)")
    }

    func testShortOutputIsKeptWhole() {
        XCTAssertEqual(CrashOutput.kept(Array("one\ntwo\n".utf8)), ["one", "two"])
    }

    // MARK: - Crashes in child processes

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

    // MARK: - Explanations from the record alone

    func testEachExplanationFollowsItsEvidence() {
        let spec = Synthetic.trial(strategy: "pthread-mutex", repetition: 0, opsPerSecond: 1, latencyNs: 10).trial
        func named(_ signal: String, _ tail: [String]) -> String {
            TrialResult.failed(spec, .crashed, FailureReport(message: "the trial process died of \(signal)", signal: signal, outputTail: tail))
                .namingCrashCause().failure?.message ?? ""
        }
        XCTAssertEqual(named("SIGILL", ["*** Swift runtime failure: arithmetic overflow ***"]),
                       "the trial process died of SIGILL: Swift runtime failure: arithmetic overflow", "the backtracer's header, when enabled")
        // glibc's allocator prints what it found, then aborts (a double free
        // in a child is not shown end to end: the malloc interposer that
        // counts allocations turns some into a SIGSEGV).
        XCTAssertEqual(named("SIGABRT", ["noise", "malloc(): corrupted top size"]),
                       "the trial process died of SIGABRT: malloc(): corrupted top size; " + CrashCause.corruptedHeapHint)
        XCTAssertEqual(named("SIGABRT", ["double free or corruption (fasttop)"]),
                       "the trial process died of SIGABRT: double free or corruption (fasttop); " + CrashCause.corruptedHeapHint)
        XCTAssertEqual(named("SIGSEGV", ["stressbench: the trial process got SIGSEGV; where each worker was:"]),
                       "the trial process died of SIGSEGV", "nothing to say that the signal does not")
        XCTAssertEqual(named("SIGTRAP", []), "the trial process died of SIGTRAP; " + CrashCause.silentTrapHint)
    }
}
