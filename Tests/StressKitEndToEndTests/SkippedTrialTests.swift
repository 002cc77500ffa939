import Foundation
import InterposerPayload
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Nothing checked is not success: trials skipped for lack of something they
/// need (jemalloc, the interposer, a child process) fail the run when they
/// were there to catch a bug, or when nothing ran at all; and the interposer
/// is found wherever a build of stressbench puts it.
final class SkippedTrialTests: XCTestCase {
    private let jemallocPlan = """
        experiments:
          - name: control
            workload: counter
            strategies: [unsynchronized]
            threads: 4
            duration: 50ms
            allocator: [jemalloc]
            expect: violated
          - name: correct
            workload: counter
            strategies: [mutex]
            threads: 1
            ops: 1000
            allocator: [system]
        """

    private func withMissingJemalloc<T>(_ body: () throws -> T) rethrows -> T {
        setenv("STRESSBENCH_JEMALLOC", "/nonexistent/libjemalloc.so.2", 1)
        defer { unsetenv("STRESSBENCH_JEMALLOC") }
        return try body()
    }

    func testATrialExpectedToFailThatIsSkippedFailsTheRun() throws {
        let report = try withMissingJemalloc { try TestSupport.runIsolated(jemallocPlan) }
        XCTAssertEqual(report.trials.map(\.outcome), [.skipped, .passed])
        XCTAssertEqual(report.trials[0].failure?.missing, "jemalloc")
        XCTAssertEqual(report.trials[0].failure?.message,
                       "STRESSBENCH_JEMALLOC names /nonexistent/libjemalloc.so.2, which does not exist; point it at libjemalloc.so.2, or unset it")
        XCTAssertEqual(report.uncheckedTrials.map(\.trial.id), ["control/unsynchronized/jemalloc/t4/r0"])
        XCTAssertEqual(report.exitCode, .trialFailures)
        let summary = TableReport.render(report).split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(summary.contains("1 trial(s) the plan expects to fail were skipped"), summary)
        XCTAssertTrue(summary.contains("for lack of jemalloc"), summary)
        XCTAssertTrue(summary.hasSuffix("exit code 3"), summary)
    }

    func testAllowingSkipsExitsByWhatRan() throws {
        var report = try withMissingJemalloc { try TestSupport.runIsolated(jemallocPlan) }
        report.skipsAllowed = true
        XCTAssertEqual(report.uncheckedTrials.count, 0)
        XCTAssertNil(report.uncheckedProblem)
        XCTAssertEqual(report.exitCode, .passed)
    }

    func testEveryTrialSkippedFailsTheRunFromTheCommandLineUnlessAllowed() throws {
        let (status, stdout, _) = try withMissingJemalloc {
            try TestSupport.cli(["run", "Plans/quickstart.yaml", "--allocator", "jemalloc", "-q", "--only", "counter/mutex"])
        }
        XCTAssertEqual(status, 3, stdout)
        XCTAssertTrue(stdout.contains("every trial was skipped, so nothing was checked"), stdout)
        XCTAssertTrue(stdout.contains("--allow-skipped accepts the skips"), stdout)
        let allowed = try withMissingJemalloc {
            try TestSupport.cli(["run", "Plans/quickstart.yaml", "--allocator", "jemalloc", "-q", "--only", "counter/mutex", "--allow-skipped"])
        }
        XCTAssertEqual(allowed.status, 0, allowed.stdout)
        XCTAssertTrue(allowed.stdout.hasSuffix("2 trial(s): 2 skipped; exit code 0\n"), allowed.stdout)
    }

    func testARunStoppedEarlyIsJudgedByItsStopNotBySkips() throws {
        let stopped = RunReport(plan: "p", planFile: "p.yaml", startedAt: Date(), finishedAt: Date(),
                                stop: RunStop(reason: .failFast, trial: "a"), trials: [])
        XCTAssertTrue(stopped.uncheckedTrials.isEmpty)
    }

    // MARK: - The interposer

    func testTheBuildCarriesTheInterposerAsAResourceOfEveryExecutable() throws {
        let directory = URL(fileURLWithPath: TestSupport.stressbenchPath).deletingLastPathComponent().path
        let bundled = try XCTUnwrap(InterposerPayload.libraryPath(inDirectory: directory),
                                    "no *_InterposerPayload.resources/libStressInterpose.so in \(directory)")
        XCTAssertEqual(Interposer.libraryPath(besides: TestSupport.stressbenchPath), bundled,
                       "the resource comes first: `swift run` builds it, not the StressInterpose product")
        // It is the interposer: it exports the entry points the trial looks up.
        let handle = try XCTUnwrap(dlopen(bundled, RTLD_NOW | RTLD_LOCAL), String(cString: dlerror()))
        defer { dlclose(handle) }
        XCTAssertNotNil(dlsym(handle, "stress_interpose_attach"))
    }

    func testTheInterposerIsLookedForUnderAnyPackageIdentity() throws {
        let dir = try TestSupport.temporaryDirectory()
        XCTAssertNil(InterposerPayload.libraryPath(inDirectory: dir.path))
        XCTAssertNil(Interposer.libraryPath(besides: dir.appendingPathComponent("stressbench").path))
        XCTAssertTrue(Interposer.missingMessage(besides: dir.appendingPathComponent("stressbench").path)
            .contains("swift build --product StressInterpose"))
        // A checkout used as a local dependency under another folder name.
        let bundle = dir.appendingPathComponent("my-checkout_InterposerPayload.resources")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data().write(to: bundle.appendingPathComponent("libStressInterpose.so"))
        XCTAssertEqual(InterposerPayload.libraryPath(inDirectory: dir.path), bundle.appendingPathComponent("libStressInterpose.so").path)
    }
}
