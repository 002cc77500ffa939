import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `check: linearizable` in a plan: the built-in models against their
/// correct and buggy variants, the record it writes, and the plan errors
/// that name the key's line.
final class LinearizabilityPlanTests: XCTestCase {
    /// Each of the plan's buggy variants, caught by the model alone, and
    /// each correct one passing. The buggy ones run under controlled
    /// scheduling, so that seed 1 finds each of them every time (within its
    /// first 25 rounds; free-running detection rates are measured by
    /// scripts/linearizability-detection.sh). Rounds, not time, bound the trials.
    func testBuiltInModelsCatchEveryBuggyVariantAndPassTheCorrectOnes() throws {
        let report = try TestSupport.runInProcess("""
            defaults: {strategies: [pthread-mutex], threads: 2, ops: 1000, warmup: 0, seed: 1, fuzz: yield}
            experiments:
              - {name: counter-correct, workload: counter, check: linearizable, parameters: {variant: correct, read_ratio: 0.3}, ops: 300}
              - {name: counter-split-rmw, schedule: controlled, workload: counter, check: linearizable, parameters: {variant: split-rmw, read_ratio: 0.3}, expect: violated}
              - {name: queue-correct, workload: queue, check: linearizable, parameters: {variant: correct, capacity: 4}, ops: 300}
              - {name: queue-split-take, schedule: controlled, workload: queue, check: linearizable, parameters: {variant: split-take, capacity: 4}, expect: violated}
              - {name: cache-correct, workload: cache, check: linearizable, strategies: [pthread-mutex, rwlock], ops: 300,
                 parameters: {variant: correct, keys: 2, read_ratio: 0.5, distribution: uniform}}
              - {name: cache-stale-snapshot, schedule: controlled, workload: cache, check: linearizable, expect: violated,
                 parameters: {variant: stale-snapshot, keys: 2, read_ratio: 0.5, distribution: uniform}}
              - {name: cache-write-through-read, schedule: controlled, workload: cache, check: linearizable, strategies: [rwlock], expect: violated,
                 parameters: {variant: write-through-read, keys: 2, read_ratio: 0.5, distribution: uniform}}
              - {name: cache-thread-cache, schedule: controlled, workload: cache, check: linearizable, expect: violated,
                 parameters: {variant: thread-cache, keys: 2, read_ratio: 0.5, distribution: uniform}}
            """)
        XCTAssertEqual(report.trials.count, 9)
        for trial in report.trials {
            let record = try XCTUnwrap(trial.linearizability, trial.trial.id)
            XCTAssertEqual(trial.trial.check, .linearizable)
            if trial.trial.expect == nil {
                XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(trial.problemLine)")
                XCTAssertEqual(record.verdict, .linearizable, trial.trial.id)
                XCTAssertNil(record.history)
            } else {
                XCTAssertEqual(trial.outcome, .violated, "\(trial.trial.id) must be caught")
                XCTAssertEqual(record.verdict, .violated, trial.trial.id)
                let history = try XCTUnwrap(record.history, trial.trial.id)
                XCTAssertTrue(history.contains { $0.unexplained == true }, trial.trial.id)
                XCTAssertLessThanOrEqual(history.count, 20, trial.trial.id)
            }
            XCTAssertGreaterThan(record.histories, 0, trial.trial.id)
        }
    }

    /// Every output carries the verdict, and a violation's history as a
    /// table with one column per thread: the terminal table, Markdown and
    /// JUnit, besides the JSON record. Under control, so that the seed
    /// finds the bug every time.
    func testEveryOutputShowsTheVerdictAndTheFailingHistory() throws {
        let report = try TestSupport.runInProcess("""
            defaults: {strategies: [pthread-mutex], threads: 2, ops: 300, warmup: 0, seed: 1, schedule: controlled}
            experiments:
              - {name: fine, workload: counter, check: linearizable, parameters: {variant: correct}}
              - {name: broken, workload: counter, check: linearizable, parameters: {variant: split-rmw}, expect: violated}
            """)
        let record = try XCTUnwrap(report.trials.last?.linearizability)
        XCTAssertEqual(record.verdict, .violated)
        let table = try XCTUnwrap(record.historyTable.first)
        XCTAssertTrue(table.contains("clock") && table.contains("thread 0") && table.contains("thread 1"), table)
        let text = TableReport.render(report)
        XCTAssertTrue(text.contains("fine/pthread-mutex/t2/r0: linearizable: "), text)
        XCTAssertTrue(text.contains("smallest failing scenario"), text)
        XCTAssertTrue(text.contains("no sequential order explains"), text)
        let markdown = MarkdownReport.render(report)
        XCTAssertTrue(markdown.contains("`fine/pthread-mutex/t2/r0`: linearizable: "), markdown)
        XCTAssertTrue(markdown.contains("  ```text\n  smallest failing scenario"), markdown)
        let junit = JUnitReport.render(report)
        XCTAssertTrue(junit.contains("smallest failing scenario"), junit)
        XCTAssertTrue(junit.contains("fine/pthread-mutex/t2/r0: linearizable: "), junit)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: ResultCoding.encoder().encode(report)) as? [String: Any])
        let trials = try XCTUnwrap(json["trials"] as? [[String: Any]])
        let linearizability = try XCTUnwrap(trials.last?["linearizability"] as? [String: Any])
        XCTAssertEqual(linearizability["verdict"] as? String, "violated")
        XCTAssertNotNil(linearizability["scenarios"] as? Int)
        let history = try XCTUnwrap(linearizability["history"] as? [[String: Any]])
        XCTAssertTrue(history.allSatisfy { $0["worker"] is Int && $0["operation"] is String })
        XCTAssertEqual((trials.last?["trial"] as? [String: Any])?["check"] as? String, "linearizable")
    }

    /// The cache's thread-cache bug is invisible to the workload's own
    /// invariants: the plain workload passes where the model finds it.
    func testThreadCacheEscapesTheCacheInvariants() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - {workload: cache, strategies: [pthread-mutex], threads: 2, ops: 20000, warmup: 0, seed: 1, fuzz: yield,
                 parameters: {variant: thread-cache, keys: 2, read_ratio: 0.5, distribution: uniform}}
            """)
        XCTAssertEqual(report.trials.first?.outcome, .passed, report.trials.first?.problemLine ?? "")
        XCTAssertNil(report.trials.first?.linearizability)
    }

    func testCheckOnAWorkloadWithoutAModelNamesTheKeyAndTheWorkloadsThatHaveOne() {
        let problems = TestSupport.problems("""
            experiments:
              - workload: bank
                check: linearizable
            """)
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(problems.first?.path.description, "experiments[0].check")
        XCTAssertEqual(problems.first?.line, 3)
        XCTAssertTrue(problems.first?.message.contains("workload 'bank' has no sequential model") == true, problems.first?.message ?? "")
        XCTAssertTrue(problems.first?.message.contains("counter") == true)
    }

    func testCheckRefusesAnUnknownCheckOneThreadALockFreeStrategyAndAsynchronousWrites() {
        let unknown = TestSupport.problems("experiments: [{workload: counter, check: sequential}]")
        XCTAssertTrue(unknown.first?.message.contains("expected linearizable, found 'sequential'") == true, "\(unknown)")
        let one = TestSupport.problems("experiments: [{workload: counter, check: linearizable, threads: [1, 2]}]")
        XCTAssertTrue(one.first?.message.contains("2 or more, not 1") == true, "\(one)")
        let atomic = TestSupport.problems("experiments: [{workload: counter, check: linearizable, threads: 2, strategies: [atomic]}]")
        XCTAssertTrue(atomic.first?.message.contains("'atomic' is lock-free") == true, "\(atomic)")
        let async = TestSupport.problems("experiments: [{workload: counter, check: linearizable, threads: 2, strategies: [serial-queue-async]}]")
        XCTAssertTrue(async.first?.message.contains("'serial-queue-async' writes asynchronously") == true, "\(async)")
    }

    func testAllStrategiesLeaveOutTheLockFreeOnesAndThoseWithAsynchronousWrites() throws {
        let plan = try TestSupport.plan("experiments: [{workload: counter, check: linearizable, threads: 2, strategies: all}]")
        XCTAssertFalse(plan.experiments[0].strategies.contains("atomic"))
        XCTAssertFalse(plan.experiments[0].strategies.contains("serial-queue-async"))
        XCTAssertFalse(plan.experiments[0].strategies.contains("rw-queue-async"))
        XCTAssertTrue(plan.experiments[0].strategies.contains("actor"))
        XCTAssertTrue(plan.experiments[0].checksLinearizability)
    }
}
