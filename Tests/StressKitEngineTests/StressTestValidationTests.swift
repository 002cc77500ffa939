import StressKitTestSupport
import StressKitTesting
import XCTest

/// A `StressTest` is a plan underneath: the same trials a plan file with the
/// same keys makes, and every mistake a clear error naming the builder
/// setting, before anything runs.
final class StressTestValidationTests: XCTestCase {
    /// The builder and the plan file agree trial for trial (ids, seeds,
    /// windows, fuzzing, expectations).
    func testTheBuilderMakesThePlanAPlanFileMakes() throws {
        let built = try StressTest(workload: "counter", parameters: ["variant": "split-rmw", "read_ratio": 0.25])
            .named("lost")
            .strategies("pthread-mutex", "unsynchronized")
            .threads(2, 4)
            .duration(.milliseconds(250))
            .warmup(.milliseconds(20))
            .repetitions(2)
            .seed(99)
            .fuzz(.pct)
            .deadlockAfter(.seconds(1))
            .timeout(.seconds(30))
            .stopOnViolation()
            .expect(.violated)
            .plan()
        let written = try TestSupport.plan("""
            name: lost
            experiments:
              - name: lost
                workload: counter
                parameters: { variant: split-rmw, read_ratio: 0.25 }
                strategies: [pthread-mutex, unsynchronized]
                threads: [2, 4]
                duration: 250ms
                warmup: 20ms
                repetitions: 2
                seed: 99
                fuzz: pct
                deadlock_after: 1s
                timeout: 30s
                stop_on_violation: true
                expect: violated
            """)
        XCTAssertEqual(TrialMatrix.expand(built), TrialMatrix.expand(written))
        XCTAssertEqual(TrialMatrix.expand(built).count, 8)

        var tuned = FuzzSettings(.chaos)
        tuned.sleepProbability = 0
        tuned.pctDepth = 2
        let fuzzed = try StressTest(workload: "counter").strategies("nslock").threads(2).ops(10).fuzz(tuned).plan()
        XCTAssertEqual(fuzzed.experiments[0].fuzz, tuned)
    }

    func testAnUnknownStrategyListsTheKnownOnes() {
        let error = problems(StressTest(workload: "counter").strategies("pthread-mutex", "pthread-mutx").threads(1).ops(10))
        XCTAssertEqual(error?.problems.map(\.setting), ["strategies[1]"])
        let message = error?.description ?? ""
        XCTAssertTrue(message.hasPrefix("StressTest of workload counter at StressTestValidationTests.swift:"), message)
        XCTAssertTrue(message.contains("unknown strategy 'pthread-mutx'; did you mean 'pthread-mutex'? (available: "), message)
        XCTAssertTrue(message.contains("nslock"), message)
    }

    func testUnknownWorkloadsAndBadParametersNameTheirSetting() {
        XCTAssertEqual(problems(StressTest(workload: "countr"))?.problems.first?.description,
                       "workload: unknown workload 'countr'; did you mean 'counter'? (available: "
                       + StressRegistry.builtIn.workloads.filter { !$0.descriptor.hidden }.map(\.descriptor.name).joined(separator: ", ")
                       + "; `stressbench list` describes them)")
        let range = problems(StressTest(PageViewsWorkload.self, parameters: ["pages": 0]))
        XCTAssertEqual(range?.problems.map(\.setting), ["parameters[\"pages\"]"])
        XCTAssertTrue(range?.description.contains("out of range") == true, "\(String(describing: range))")
        let unknown = problems(StressTest(PageViewsWorkload.self).parameter("pagez", 3))
        XCTAssertEqual(unknown?.problems.map(\.description), ["parameters[\"pagez\"]: unknown parameter 'pagez'; did you mean 'pages'? (allowed here: pages)"])
        let kind = problems(StressTest(workload: "counter", parameters: ["variant": 2]))
        XCTAssertEqual(kind?.problems.map(\.setting), ["parameters[\"variant\"]"])
    }

    /// Every problem at once, each by its setting.
    func testEveryProblemIsListedBySetting() {
        let error = problems(StressTest(workload: "counter")
            .strategies([])
            .threads([])
            .duration(.seconds(-1))
            .warmup(.milliseconds(-5)))
        XCTAssertEqual(error?.problems.map(\.setting), ["strategies", "threads", "duration", "warmup"])
        XCTAssertEqual(error?.description.split(separator: "\n").count, 5, error?.description ?? "")

        let loader = problems(StressTest(workload: "counter").strategies("nslock", "nslock").threads(0, 2).ops(0).repetitions(0).seed(1 << 60))
        XCTAssertEqual(Set(loader?.problems.map(\.setting) ?? []), ["strategies[1]", "threads[0]", "ops", "repetitions", "seed"])
    }

    func testSettingsThatContradictEachOtherAreRefused() {
        let watchdog = problems(StressTest(workload: "counter").strategies("nslock").threads(2).ops(100)
            .deadlockAfter(.seconds(20)).timeout(.seconds(10)))
        XCTAssertEqual(watchdog?.problems.map(\.setting), ["deadlockAfter"])
        XCTAssertTrue(watchdog?.description.contains("must be shorter than the trial timeout") == true)

        let notRun = problems(StressTest(workload: "counter").strategies("nslock").threads(2).ops(100)
            .expect(.violated, for: "unsynchronized"))
        XCTAssertEqual(notRun?.problems.first?.description,
                       "expect[\"unsynchronized\"]: this experiment does not run strategy 'unsynchronized' (it runs: nslock)")

        let notExpectable = problems(StressTest(workload: "counter").strategies("nslock").threads(2).ops(100).expect(.timeout))
        XCTAssertTrue(notExpectable?.description.contains("'timeout' is not an outcome a plan can expect") == true,
                      "\(String(describing: notExpectable))")
    }

    /// `.isolated()` finds a Swift Testing test; in an XCTest method it says
    /// what to write instead.
    func testIsolatedOutsideSwiftTestingSaysWhatToWrite() {
        let error = problems(StressTest(workload: "counter").strategies("nslock").threads(1).ops(10).isolated())
        XCTAssertEqual(error?.problems.map(\.setting), ["isolated()"])
        XCTAssertTrue(error?.description.contains("write .isolated(in: self)") == true, "\(String(describing: error))")
    }

    /// A test's rerun selects one trial; a stress test without that trial
    /// runs nothing (the rerun is for another stress test of the same test).
    func testARerunOfAnotherTrialRunsNothingHere() throws {
        let report = try StressTest(workload: "counter").strategies("nslock").threads(1).ops(10).warmup(.zero)
            .rerun(trial: "bank/nslock/t1/r0").run()
        XCTAssertTrue(report.trials.isEmpty)
        XCTAssertTrue(report.succeeded)
    }

    private func problems(_ test: StressTest, file: StaticString = #filePath, line: UInt = #line) -> StressTestError? {
        do {
            _ = try test.plan()
            XCTFail("the settings were accepted", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }
}
