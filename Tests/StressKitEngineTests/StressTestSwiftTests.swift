import Foundation
import StressKitTestSupport
import StressKitTesting
import Testing

/// `StressTest` from Swift Testing: the same checks as StressTestXCTests, as
/// `@Test` functions, with failures recorded as issues at the call. The tests
/// are `async` and `await` their stress tests, which then wait and run on
/// threads of their own: Swift Testing runs these tests in parallel, on a
/// cooperative pool as wide as the machine (2 threads here), which the
/// `actor` strategy's worker tasks need.
@Suite struct StressTestSwiftTests {
    @Test func correctWorkloadPassesUnderSeveralStrategiesInProcess() async throws {
        let report = await StressTest(PageViewsWorkload.self, parameters: ["pages": 8])
            .strategies("pthread-mutex", "nslock", "rw-queue", "actor")
            .threads(1, 4)
            .ops(3_000)
            .warmup(.zero)
            .fuzz(.light)  // chaos's sleeps and yields take minutes on a busy machine
            .seed(5)
            .expectSuccess()
        let trials = try #require(report?.trials)
        #expect(trials.count == 8)
        #expect(trials.allSatisfy { $0.outcome == .passed && $0.measurement?.totalOps == 3_000 * $0.trial.threads })
        #expect(report?.test?.library == .swiftTesting)
        #expect(report?.test?.filter == "StressKitEngineTests.StressTestSwiftTests/correctWorkloadPassesUnderSeveralStrategiesInProcess")
    }

    /// Isolated: each trial runs in a child process of this test binary,
    /// which Swift Testing runs with only this test selected.
    @Test func correctWorkloadPassesIsolatedInChildProcesses() async throws {
        let report = try await StressTest(ProcessProbeWorkload.self)
            .strategies("pthread-mutex", "serial-queue")
            .strategy(AppLockStrategy.self)
            .threads(2)
            .ops(2_000)
            .warmup(.zero)
            .isolated()
            .requireSuccess()
        #expect(report.trials.count == 3)
        for trial in report.trials {
            #expect(trial.measurement?.workloadMetrics["pid"].map { $0 != Double(getpid()) } == true, "\(trial.trial.id)")
        }
    }

    /// A parameterized test reaches the same call once per case: in the
    /// child, only the case whose settings make the trial sent takes it.
    @Test(arguments: [1, 3])
    func isolatedParameterizedCasesTakeTheirOwnTrials(threads: Int) async throws {
        let report = try await StressTest(ProcessProbeWorkload.self).strategies("nslock").threads(threads).ops(500).warmup(.zero)
            .isolated()
            .requireSuccess()
        #expect(report.trials.map(\.trial.threads) == [threads])
        #expect(report.trials.first?.measurement?.perThreadOps.count == threads)
    }

    /// The deliberate bug, as a value and as the error `requireSuccess` throws.
    @Test func buggyWorkloadFailsWithFirstViolationAndSeed() async throws {
        let report = try await StressTestFixtures.lostUpdate.run()
        let failure = try #require(report.failure, "the lost update was not found: \(report.summary)")
        let first = try #require(failure.trial.violations.samples.first)
        #expect(failure.description.contains(first.summaryLine))
        #expect(failure.description.contains("(seed \(failure.seed), fuzz yield)"))
        #expect(failure.rerunCommand.hasPrefix("STRESSBENCH_TRIAL=counter/unsynchronized/t2/r0 STRESSBENCH_SEED=\(failure.seed) swift test --filter "))

        let thrown = await #expect(throws: StressTestFailure.self) { try await StressTestFixtures.lostUpdate.requireSuccess() }
        #expect(thrown?.trial.outcome == .violated)
        #expect(thrown?.description.contains("lost update") == true)
    }

    /// What Swift Testing prints for a failing stress test: the issue at the
    /// call, with the violation, the seed and the rerun command.
    @Test func swiftTestingRecordsTheFailureAtTheCall() async throws {
        let run = try await StressTestFixtures.runTestBinary(["--testing-library", "swift-testing", "--filter", "reportingFixture"])
        #expect(run.termination == .exited(1), "\(run.output)")
        // `recorded an issue at File.swift:line:column: Issue recorded`, then the
        // message on the lines after it; the line the call's.
        let recorded = /reportingFixture\(\) recorded an issue at StressTestSwiftTests\.swift:(\d+):\d+: Issue recorded\s+↳ StressTest of workload counter at StressTestSwiftTests\.swift:(\d+)/
        let match = try #require(run.output.firstMatch(of: recorded), "\(run.output)")
        #expect(match.1 == match.2)
        #expect(run.output.contains("lost update"))
        #expect(run.output.contains("rerun: STRESSBENCH_TRIAL=counter/unsynchronized/t2/r0 STRESSBENCH_SEED="))
        #expect(run.output.contains("swift test --filter StressKitEngineTests.StressTestSwiftTests/reportingFixture"))
    }

    /// Fails on purpose, and only in the run above; skipped in any other run
    /// (it tests nothing there, so it must not count as passed).
    @Test(.enabled(if: StressTestFixtures.runsReportingFixture, "a fixture: fails on purpose in the child run above only"))
    func reportingFixture() async {
        await StressTestFixtures.lostUpdate.expectSuccess()
    }
}
