import Foundation
import StressCore
import StressRunner

/// Running a stress test: in this process, or each trial in a child process
/// of the test binary (the parent side here, the child side in ``TestChild``).
extension StressTest {
    /// The variable of a printed rerun command that selects one trial by id
    /// (`counter/unsynchronized/t2/r0`): every stress test the rerun test
    /// runs then runs only the trial of that id, if it has one.
    public static let trialVariable = "STRESSBENCH_TRIAL"
    /// The variable of a printed rerun command that gives the selected
    /// trial (or, alone, every trial) this seed.
    public static let seedVariable = "STRESSBENCH_SEED"

    /// Runs every trial and returns what happened; a failing trial does not
    /// throw (see ``requireSuccess(fileID:line:column:function:)-798wd``). Throws a
    /// ``StressTestError`` when the settings cannot run.
    ///
    /// In a child process of an isolated stress test, the call the parent
    /// named runs the trial it was sent and ends the process; every other
    /// stress test returns at once, with no trials.
    ///
    /// - Parameters:
    ///   - fileID: The call site's file, which failures and rerun commands name; leave the default.
    ///   - line: The call site's line; leave the default.
    ///   - column: The call site's column; leave the default.
    ///   - function: The calling function, which selects the test in a child process; leave the default.
    /// - Returns: The report of every trial that ran.
    /// - Throws: ``StressTestError`` when the settings cannot run.
    @discardableResult
    public func run(
        fileID: String = #fileID, line: Int = #line, column: Int = #column, function: String = #function
    ) throws(StressTestError) -> StressTestReport {
        try run(at: StressTestCallSite(fileID: fileID, line: line, column: column, function: function))
    }

    /// Runs every trial and throws a ``StressTestFailure`` when one of them
    /// did not do what it must: the message has the first violation (or the
    /// deadlock, or the crash's cause), the seed, and a command that reruns
    /// that one trial. Works under Swift Testing and XCTest alike.
    ///
    /// - Parameters:
    ///   - fileID: The call site's file, which failures and rerun commands name; leave the default.
    ///   - line: The call site's line; leave the default.
    ///   - column: The call site's column; leave the default.
    ///   - function: The calling function, which selects the test in a child process; leave the default.
    /// - Returns: The report of every trial, when all did what they must.
    /// - Throws: ``StressTestFailure`` for the first trial that did not, ``StressTestError`` when the settings cannot run.
    @discardableResult
    public func requireSuccess(
        fileID: String = #fileID, line: Int = #line, column: Int = #column, function: String = #function
    ) throws -> StressTestReport {
        let report = try run(at: StressTestCallSite(fileID: fileID, line: line, column: column, function: function))
        if let failure = report.failure { throw failure }
        return report
    }

    /// ``run(fileID:line:column:function:)-3cujl`` for a call site given explicitly (what
    /// a wrapper that reports at its own caller passes on).
    ///
    /// Stress tests run one at a time in a process (a second waits for the
    /// first): the engine has one running trial per process, and a trial
    /// sharing the cores with another would find its races less often than
    /// its budget was measured to.
    ///
    /// - Parameter site: The call site failures and rerun commands name.
    /// - Returns: The report of every trial that ran.
    /// - Throws: ``StressTestError`` when the settings cannot run.
    public func run(at site: StressTestCallSite) throws(StressTestError) -> StressTestReport {
        let plan = try plan(at: site)
        let options = try runOptions(at: site)
        let runner = PlanRunner(registry: registry, options: options)
        if let wanted = TestChild.wantedCallSite {
            // A child process of an isolated stress test: only the call that
            // started it takes its trial, and only when these settings make
            // that very trial, or an attempt of a hunt for it (a
            // parameterized test reaches one call with several settings).
            if wanted == site.key, let spec = TestChild.spec, runner.takes(spec, of: plan) {
                TestChild.run(spec, registry: registry)
            }
            return StressTestReport(run: RunReport(plan: plan.name, planFile: plan.file, startedAt: Date(), finishedAt: Date(), trials: []),
                                    subject: subject, callSite: site, test: test)
        }
        var report: RunReport
        do {
            Self.oneAtATime.lock()
            defer { Self.oneAtATime.unlock() }
            report = try runner.run(plan)
        } catch {
            throw StressTestError(callSite: site.description, subject: subject, problems: [.init(setting: "", error.description)])
        }
        if case .childProcess(let test) = isolation {
            report.trials = report.trials.map { Self.explainingMissedCall($0, test: test, site: site) }
        }
        return StressTestReport(run: report, subject: subject, callSite: site, test: test)
    }

    /// Held while a stress test runs its trials.
    private static let oneAtATime = NSLock()

    /// How the runner runs these trials: isolation, and the trial and seed a
    /// rerun selects (its environment variables win over ``rerun(trial:seed:)``).
    private func runOptions(at site: StressTestCallSite) throws(StressTestError) -> RunOptions {
        var options = RunOptions(isolation: .inProcess)
        let environment = ProcessInfo.processInfo.environment
        if let id = environment[Self.trialVariable] ?? rerunTrial?.id { options.only = [id] }
        if let text = environment[Self.seedVariable] {
            guard let seed = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
                throw StressTestError(callSite: site.description, subject: subject, problems: [
                    .init(setting: Self.seedVariable, "'\(text)' is not a seed: expected a non-negative integer, as a rerun command prints it"),
                ])
            }
            options.seed = seed
        } else {
            options.seed = rerunTrial?.seed
        }
        if case .childProcess(let test) = isolation {
            options.isolation = .childProcess(executable: TrialIsolation.currentExecutablePath, arguments: test.childArguments)
            options.childEnvironment = [TestChild.callSiteVariable: site.key]
        }
        return options
    }

    /// A trial whose child process ended normally without a record: the test
    /// binary ran the test again, but the test did not reach this call with
    /// these settings (or its filter selected no test). Says so.
    static func explainingMissedCall(_ result: TrialResult, test: TestID, site: StressTestCallSite) -> TrialResult {
        guard let failure = result.failure, failure.signal == nil, failure.exitStatus != nil,
              result.measurement == nil, result.stall == nil, result.violations.count == 0 else { return result }
        var explained = result
        explained.failure?.message += "; the test binary ran \(test) again for this trial, and it did not reach the StressTest "
            + "at \(site) with the same settings (the child process takes its trial at the call that started it)"
        return explained
    }
}
