import Foundation
import StressKitTestSupport
import StressKitTesting
import XCTest

/// `StressTest` from XCTest: a correct workload under several strategies, in
/// process and isolated; a deliberate bug, whose failure names the first
/// violation, the seed and a rerun that reproduces it; a deadlock and a crash
/// in child processes; and what XCTest prints for a failing stress test.
final class StressTestXCTests: XCTestCase {
    /// A team's own workload and its own strategy type beside built-ins,
    /// fuzzed, in this process.
    func testCorrectWorkloadPassesUnderSeveralStrategiesInProcess() throws {
        let report = try StressTest(PageViewsWorkload.self, parameters: ["pages": 8])
            .strategies("pthread-mutex", "serial-queue", "actor")
            .strategy(AppLockStrategy.self)
            .threads(1, 4)
            .ops(3_000)
            .warmup(.zero)
            // Light: rare short spins. Yields would cost a time slice each on
            // a busy machine (minutes for this test at load 11, 0.5 s idle).
            .fuzz(.light)
            .seed(11)
            .run()
        XCTAssertEqual(report.trials.map(\.trial.strategy), ["pthread-mutex", "pthread-mutex", "serial-queue", "serial-queue",
                                                             "actor", "actor", "app-lock", "app-lock"])
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(trial.problemLine)")
            XCTAssertEqual(trial.measurement?.totalOps, 3_000 * trial.trial.threads)
            XCTAssertEqual(trial.trial.fuzz.profile, .light)
        }
        XCTAssertTrue(report.succeeded)
        XCTAssertNil(report.failure)
        XCTAssertEqual(report.summary, "8 trials: 8 passed")
        // The reporting path of a passing run records nothing.
        XCTAssertEqual(StressTest(PageViewsWorkload.self).strategies("nslock").threads(2).ops(1_000).warmup(.zero)
            .expectSuccess(in: self)?.trials.count, 1)
    }

    /// Each trial in a child process of this test binary, which runs this
    /// test again: the probe reports another process id, and the types handed
    /// to the builder exist there because the same line made them.
    func testCorrectWorkloadPassesIsolatedInChildProcesses() throws {
        let report = try StressTest(ProcessProbeWorkload.self)
            .strategies("pthread-mutex", "actor")
            .strategy(AppLockStrategy.self)
            .threads(2)
            .ops(2_000)
            .warmup(.zero)
            .isolated(in: self)
            .run()
        XCTAssertEqual(report.trials.count, 3)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(trial.problemLine) \(trial.failure?.outputTail ?? [])")
            let pid = try XCTUnwrap(trial.measurement?.workloadMetrics["pid"], trial.trial.id)
            XCTAssertNotEqual(pid, Double(getpid()), "\(trial.trial.id) ran in the test's own process")
        }
        XCTAssertEqual(report.test?.identifier, "StressKitEngineTests.StressTestXCTests/testCorrectWorkloadPassesIsolatedInChildProcesses")
        let here = try StressTest(ProcessProbeWorkload.self).strategies("nslock").threads(1).ops(100).warmup(.zero).run()
        XCTAssertEqual(here.trials.first?.measurement?.workloadMetrics["pid"], Double(getpid()))
    }

    /// The deliberate bug: the failure carries the first violation, the
    /// seed, and a rerun command; rerunning that trial with that seed in code
    /// (what the command's variables do) runs it alone and finds it again.
    func testBuggyWorkloadFailsWithFirstViolationSeedAndRerun() throws {
        let report = try StressTestFixtures.lostUpdate.test(.init(self)).run()
        let failure = try XCTUnwrap(report.failure, "the lost update was not found: \(report.summary)")
        XCTAssertEqual(failure.trial.outcome, .violated)
        let first = try XCTUnwrap(failure.trial.violations.samples.first)
        XCTAssertTrue(first.message.contains("lost update"), first.message)
        let message = failure.description
        XCTAssertTrue(message.contains(first.summaryLine), message)
        XCTAssertTrue(message.contains("counter/unsynchronized/t2/r0: violated (seed \(failure.seed), fuzz yield)"), message)
        XCTAssertTrue(message.hasPrefix("StressTest of workload counter at StressTestXCTests.swift:"), message)
        XCTAssertTrue(message.hasSuffix("  rerun: STRESSBENCH_TRIAL=counter/unsynchronized/t2/r0 STRESSBENCH_SEED=\(failure.seed) "
                                        + "swift test --filter StressKitEngineTests.StressTestXCTests/testBuggyWorkloadFailsWithFirstViolationSeedAndRerun"),
                      message)
        XCTAssertThrowsError(try StressTestFixtures.lostUpdate.requireSuccess()) { error in
            XCTAssertTrue((error as? StressTestFailure)?.description.contains("lost update") == true, "\(error)")
        }

        let rerun = try StressTestFixtures.lostUpdate.repetitions(3).rerun(trial: failure.trial.trial.id, seed: failure.seed).run()
        XCTAssertEqual(rerun.trials.map(\.trial.id), [failure.trial.trial.id])
        XCTAssertEqual(rerun.trials.first?.trial.seed, failure.seed)
        XCTAssertEqual(rerun.trials.first?.outcome, .violated)
    }

    /// The bug expected: caught, as expected, counts as success; and a
    /// correct run expected to show a bug is a failure (the checks went blind).
    func testExpectedBugIsCaughtAndAMissedOneFails() throws {
        let caught = try StressTestFixtures.lostUpdate.expect(.violated).run()
        XCTAssertTrue(caught.succeeded, caught.failure?.description ?? "")
        XCTAssertEqual(caught.caught.count, 1)
        XCTAssertEqual(caught.summary, "1 trial: 1 violated (1 caught, as expected)")

        let missed = try StressTest(workload: "counter").strategies("pthread-mutex", "unsynchronized").threads(1).ops(1_000)
            .warmup(.zero).expect(.violated, for: "pthread-mutex").run()
        let failure = try XCTUnwrap(missed.failure)
        XCTAssertEqual(failure.trial.trial.strategy, "pthread-mutex")
        XCTAssertEqual(failure.verdict, "passed, but expected violated")
        XCTAssertTrue(failure.description.contains("the checks did not see the bug they are there to see"), failure.description)
        XCTAssertEqual(missed.trials.count, 2, "one worker: the unsynchronized counter has no race and must pass")
    }

    /// A deadlock in a child process: the watchdog's report comes back as
    /// the trial's outcome, with where every worker waits, and the test
    /// process goes on.
    func testDeadlockIsolatedNamesTheStuckWorkers() throws {
        let report = try StressTest(workload: "bank", parameters: ["variant": "nested-transaction"])
            .strategies("pthread-mutex")
            .threads(4)
            .duration(.milliseconds(300))
            .warmup(.zero)
            .deadlockAfter(.milliseconds(500))
            .isolated(in: self)
            .run()
        let failure = try XCTUnwrap(report.failure, report.summary)
        XCTAssertEqual(failure.trial.outcome, .deadlock, failure.description)
        XCTAssertTrue(failure.description.contains("    worker 0: "), failure.description)
        XCTAssertTrue(failure.description.contains("STRESSBENCH_SEED=\(failure.seed)"), failure.description)
    }

    /// A trap in a child process: the trial is `crashed`, with the cause its
    /// output names.
    func testCrashIsolatedCarriesItsCause() throws {
        let report = try StressTest(workload: "bank", parameters: ["variant": "nested-transaction"])
            .strategies("serial-queue")
            .threads(2)
            .duration(.milliseconds(300))
            .warmup(.zero)
            .isolated(in: self)
            .run()
        let failure = try XCTUnwrap(report.failure, report.summary)
        XCTAssertEqual(failure.trial.outcome, .crashed, failure.description)
        // libdispatch's trap prints nothing on Linux: the record names the likely cause.
        XCTAssertTrue(failure.problem.contains("SIGILL") || failure.trial.crashCause != nil, failure.description)
        XCTAssertTrue(failure.description.contains(failure.problem), failure.description)
        XCTAssertFalse(failure.description.contains("Test Case '"), "the test library's own lines are left out: \(failure.description)")
    }

    /// A child that runs a test which never reaches the call (here the
    /// reporting fixture, which skips without its variable) ends
    /// without a record: the trial is an error that says why.
    func testAChildThatNeverReachesTheCallIsExplained() throws {
        let report = try StressTest(workload: "counter").strategies("nslock").threads(1).ops(10).warmup(.zero)
            .isolated(as: .xcTest(className: "StressKitEngineTests.StressTestXCTests", method: "testReportingFixture"))
            .run()
        let failure = try XCTUnwrap(report.failure)
        XCTAssertEqual(failure.trial.outcome, .error, failure.description)
        XCTAssertTrue(failure.description.contains("the test binary ran StressKitEngineTests.StressTestXCTests/testReportingFixture again "
                                                   + "for this trial, and it did not reach the StressTest at StressTestXCTests.swift:"),
                      failure.description)
    }

    /// What XCTest prints for a failing stress test: this test binary runs
    /// the reporting fixture below with the bug on, and its output has the
    /// failure at the call, with the violation, the seed and the rerun.
    func testXCTestReportsTheFailureAtTheCall() throws {
        let run = try StressTestFixtures.runTestBinary(["StressKitEngineTests.StressTestXCTests/testReportingFixture"])
        XCTAssertEqual(run.termination, .exited(1), run.output)
        // `file:line: error: Class.test : failed - message`, the line the call's.
        let recorded = /StressTestXCTests\.swift:(\d+): error: StressTestXCTests\.testReportingFixture : failed - StressTest of workload counter at StressTestXCTests\.swift:(\d+)/
        let match = try XCTUnwrap(run.output.firstMatch(of: recorded), run.output)
        XCTAssertEqual(match.1, match.2)
        XCTAssertTrue(run.output.contains("lost update"), run.output)
        XCTAssertTrue(run.output.contains("rerun: STRESSBENCH_TRIAL=counter/unsynchronized/t2/r0 STRESSBENCH_SEED="), run.output)
        XCTAssertTrue(run.output.contains("--filter StressKitEngineTests.StressTestXCTests/testReportingFixture"), run.output)
    }

    /// Fails on purpose, and only in the run above; skipped in any other run
    /// (it tests nothing there, so it must not count as passed).
    func testReportingFixture() throws {
        guard StressTestFixtures.runsReportingFixture else {
            throw XCTSkip("a fixture: fails on purpose in testXCTestReportsTheFailureAtTheCall's child run only")
        }
        StressTestFixtures.lostUpdate.expectSuccess(in: self)
    }
}
