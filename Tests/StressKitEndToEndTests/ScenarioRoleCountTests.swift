import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Scenarios of many roles, in a child process and in process, and the
/// outcome tables every scenario's workers hand back.
///
/// A scenario of about 66 roles or more used to die of SIGSEGV in its child
/// process after every worker had finished: the common merge freed each
/// worker's outcome table with its histograms, and the scenario's merge read
/// the tables afterwards. Freed memory usually still reads back, so two
/// roles gave right counts by luck; with a hundred worker threads the
/// allocator hands their heaps back and the read faults. The child runs
/// here with `MALLOC_PERTURB_`, which makes glibc overwrite every freed
/// block, so a read of freed memory shows in every trial, whatever the role
/// count, instead of in some.
final class ScenarioRoleCountTests: XCTestCase {
    /// The roles these tests run: the floor the scenarios guide promises.
    private let manyRoles = 256
    /// Rounds per trial: enough for every worker to arbitrate a share of
    /// them (and so hand back a table with something in it) more than once.
    private let rounds = 20

    private func plan(roles: Int, repetitions: Int, strategies: String) -> String {
        """
        defaults: { ops: \(rounds), warmup: 0, repetitions: \(repetitions) }
        experiments:
          - scenario: empty
            parameters: { roles: \(roles) }
            strategies: \(strategies)
        """
    }

    /// Child processes of the built binary in which glibc overwrites freed blocks.
    private func runInChildren(_ yaml: String) throws -> RunReport {
        var options = RunOptions(isolation: TestSupport.childIsolation)
        options.childEnvironment["MALLOC_PERTURB_"] = "165"
        return try PlanRunner.run(yaml: yaml, file: "roles.yaml", registry: .builtIn, options: options)
    }

    /// Every round counted once, as the one outcome `empty` has.
    private func assertEveryRoundCounted(_ report: RunReport, trials: Int, roles: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(report.trials.count, trials, file: file, line: line)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial), file: file, line: line)
            XCTAssertEqual(trial.trial.threads, roles, file: file, line: line)
            XCTAssertEqual(trial.rounds, rounds, trial.trial.id, file: file, line: line)
            XCTAssertEqual(trial.outcomes, [OutcomeCount(outcome: "()", count: rounds, grade: "acceptable")], trial.trial.id, file: file, line: line)
        }
    }

    func testTwoHundredFiftySixRolesRunInChildProcesses() throws {
        let report = try runInChildren(plan(roles: manyRoles, repetitions: 3, strategies: "[pthread-mutex, actor]"))
        assertEveryRoundCounted(report, trials: 6, roles: manyRoles)
    }

    func testTwoHundredFiftySixRolesRunInProcess() throws {
        let report = try TestSupport.runInProcess(plan(roles: manyRoles, repetitions: 2, strategies: "[pthread-mutex, actor]"))
        assertEveryRoundCounted(report, trials: 4, roles: manyRoles)
    }

    /// Two roles read freed tables too, silently (before the fix, every
    /// trial here recorded no outcome at all for its rounds).
    func testTheOutcomeTablesAreReadBeforeTheyAreFreed() throws {
        let report = try runInChildren(plan(roles: 2, repetitions: 3, strategies: "[pthread-mutex]"))
        assertEveryRoundCounted(report, trials: 3, roles: 2)
    }

    /// `empty`'s `roles` parameter: two by default (with the names the
    /// guide's examples show), bounded by the plan's thread limit.
    func testEmptyTakesItsRoleCountAsAParameter() throws {
        XCTAssertEqual(try TestSupport.plan("experiments:\n  - scenario: empty\n").experiments[0].threads, [2])
        XCTAssertEqual(try TestSupport.plan("experiments:\n  - scenario: empty\n    parameters: { roles: 300 }\n").experiments[0].threads, [300])
        let two = try EmptyScenario(parameters: WorkloadParameters(defaultsOf: EmptyScenario.descriptor.parameters))
        XCTAssertEqual(two.roles().map(\.name), ["first", "second"])
        let problems = TestSupport.problems("experiments:\n  - scenario: empty\n    parameters: { roles: 1 }\n")
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems.first?.description.contains("experiments[0].parameters.roles") == true, "\(problems)")
    }
}
