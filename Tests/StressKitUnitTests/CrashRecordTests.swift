import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
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
