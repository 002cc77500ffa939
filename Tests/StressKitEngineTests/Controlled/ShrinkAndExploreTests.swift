@testable import StressCore
import StressKitTestSupport
import XCTest

/// Shrinking a failed controlled trial, and bounded exhaustive exploration,
/// straight through the engine's entry points (the registry's runs).
final class ShrinkAndExploreTests: XCTestCase {
    private func controlled(threads: Int = 2, seed: UInt64 = 7, fuzz: FuzzProfile = .pct, ops: Int? = nil) -> TrialSettings {
        ControlledTrialSupport.settings(threads: threads, seed: seed, fuzz: fuzz, ops: ops)
    }

    func testTheCountersLostUpdateShrinksToOnePreemptionAndAFewRows() throws {
        var settings = controlled()
        settings.shrinkNs = 20_000_000_000
        let outcome = ControlledTrialSupport.run("counter", strategy: "unsynchronized", settings: settings)
        let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
        XCTAssertGreaterThan(output.violations.count, 0)
        let shrink = try XCTUnwrap(output.shrink)
        XCTAssertEqual(shrink.preemptionsAfter, 1, "\(shrink)")
        XCTAssertGreaterThan(shrink.preemptionsBefore, 1)
        XCTAssertEqual(shrink.operations, 1)
        let trace = try XCTUnwrap(output.trace)
        XCTAssertEqual(trace.count, shrink.eventsAfter)
        XCTAssertLessThanOrEqual(trace.count, 15, "\(trace)")
        XCTAssertEqual(trace.filter { $0.preempted == true }.count, 1)
        let values = trace.filter { $0.kind == .value }
        // Both workers read 0 and write 1: the lost update, in four values.
        XCTAssertEqual(values.map(\.name).sorted(), ["read count", "read count", "write count =", "write count ="])
        XCTAssertEqual(values.compactMap(\.value).sorted(), [0, 0, 1, 1])
        XCTAssertTrue(values.allSatisfy { $0.file?.hasSuffix("CounterWorkload+Kernels.swift") == true && $0.line != nil })
        XCTAssertTrue(trace.contains { $0.kind == .switch && $0.preempted == true && $0.file != nil })
        // The workload describes its state after each operation: both end at 1.
        XCTAssertEqual(trace.filter { $0.kind == .operationEnd }.map(\.state), ["count 1", "count 1"])
    }

    /// Two workers of one read each, under no synchronization (nothing
    /// blocks, nothing can fail): every
    /// interleaving of A's n transitions with B's m is a schedule, and one
    /// with r runs has r - 2 preemptions (every switch but the one after the
    /// first worker to finish), so the counts are, by hand:
    /// K = 0: 2 (who starts); K = 1: + (n - 1) + (m - 1); K = 2: + 2 (n - 1)(m - 1).
    func testExplorationCountsMatchTheHandCountOnATinyWorkload() throws {
        var counts: [Int] = []
        var n = 0, m = 0
        for bound in 0...2 {
            var settings = controlled(ops: 1)
            settings.exploration = ExplorationSettings(preemptions: bound, operations: 1, pruning: false)
            let outcome = ControlledTrialSupport.run("counter", ["read_ratio": .number(1)], strategy: "unsynchronized", settings: settings)
            let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
            let exploration = try XCTUnwrap(output.exploration)
            XCTAssertTrue(exploration.complete)
            XCTAssertEqual(exploration.failed, 0)
            counts.append(exploration.schedules)
            if bound == 0 {
                // The last run's decisions give each worker's transitions.
                let choices = try XCTUnwrap(output.choices)
                n = choices.filter { $0.chosen == 0 }.count
                m = choices.filter { $0.chosen == 1 }.count
            }
        }
        XCTAssertGreaterThan(n, 2)
        XCTAssertEqual(counts, [2, 2 + (n - 1) + (m - 1), 2 + (n - 1) + (m - 1) + 2 * (n - 1) * (m - 1)], "n \(n), m \(m)")
    }

    func testExplorationFindsTheLostUpdateWithOnePreemptionAndNotWithNone() throws {
        for bound in [0, 1] {
            var settings = controlled(ops: 1)
            settings.exploration = ExplorationSettings(preemptions: bound, operations: 1)
            let outcome = ControlledTrialSupport.run("counter", strategy: "unsynchronized", settings: settings)
            let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
            let exploration = try XCTUnwrap(output.exploration)
            if bound == 0 {
                XCTAssertEqual(exploration.failed, 0)
                XCTAssertTrue(exploration.complete)
                XCTAssertEqual(exploration.schedules, 2)
            } else {
                XCTAssertEqual(exploration.failed, 1)
                XCTAssertFalse(exploration.complete)
                XCTAssertNotNil(exploration.failingSchedule)
                XCTAssertGreaterThan(output.violations.count, 0)
                XCTAssertEqual(output.trace?.filter { $0.preempted == true }.count, 1)
            }
        }
    }

    /// The shipped scenarios, each variant, explored with at most 2 preemptions.
    func testScenariosExploredWithTwoPreemptions() throws {
        let cases: [(String, String, String, Bool)] = [
            ("operation-start-cancel", "correct", "pthread-mutex", false),
            ("operation-start-cancel", "cancel-finishes", "pthread-mutex", true),
            ("lazy-init-race", "correct", "rwlock", false),
            ("lazy-init-race", "check-then-create", "rwlock", true),
            ("lazy-init-race", "publish-before-initialize", "rwlock", true),
            ("nested-transaction-once", "correct", "recursive-lock", false),
            ("nested-transaction-once", "reenter", "pthread-mutex", true),
        ]
        for (name, variant, strategy, buggy) in cases {
            let entry = try XCTUnwrap(StressRegistry.builtIn.scenario(named: name))
            let roles = try entry.roleCount(WorkloadParameters(defaultsOf: entry.descriptor.parameters, overrides: ["variant": .text(variant)]))
            var settings = controlled(threads: roles)
            settings.exploration = ExplorationSettings(preemptions: 2)
            let started = MonotonicClock.now()
            let outcome = ControlledTrialSupport.run(name, ["variant": .text(variant)], strategy: strategy, settings: settings, scenario: true)
            let seconds = Double(MonotonicClock.now() - started) / 1e9
            if let stall = outcome.stall {
                print("explore \(name)/\(variant)/\(strategy): stall \(stall.kind) after \(stall.exploration?.schedules ?? -1) schedules, \(seconds) s")
                XCTAssertTrue(buggy, "\(name)/\(variant) stalled: \(stall.summary)")
                continue
            }
            let output = try XCTUnwrap(outcome.output, "\(name)/\(variant): \(String(describing: outcome.error))")
            let exploration = try XCTUnwrap(output.exploration)
            print("explore \(name)/\(variant)/\(strategy): \(exploration.schedules) schedules, \(exploration.failed) failed, complete \(exploration.complete), pruned \(exploration.pruned), \(seconds) s")
            XCTAssertEqual(exploration.failed, buggy ? 1 : 0, "\(name)/\(variant)")
            if !buggy { XCTAssertTrue(exploration.complete, "\(name)/\(variant)") }
        }
    }

    /// Pruning skips only schedules equivalent to one already run: the
    /// verdicts with and without it agree, and it runs no more schedules.
    func testPruningAgreesWithTheFullSearch() throws {
        for (workload, strategy) in [("bank", "pthread-mutex"), ("counter", "unsynchronized"), ("counter", "pthread-mutex")] {
            var results: [ScheduleRecord.Exploration] = []
            for pruning in [false, true] {
                var settings = controlled(ops: 1)
                settings.exploration = ExplorationSettings(preemptions: 2, operations: 1, pruning: pruning)
                let outcome = ControlledTrialSupport.run(workload, strategy: strategy, settings: settings)
                let output = try XCTUnwrap(outcome.output, "\(workload)/\(strategy): \(String(describing: outcome.error)) \(String(describing: outcome.stall))")
                results.append(try XCTUnwrap(output.exploration))
            }
            print("prune \(workload)/\(strategy): without \(results[0].schedules) (failed \(results[0].failed)), with \(results[1].schedules) (failed \(results[1].failed), pruned \(results[1].pruned))")
            XCTAssertEqual(results[0].failed, results[1].failed, "\(workload)/\(strategy)")
            XCTAssertLessThanOrEqual(results[1].schedules, results[0].schedules)
        }
    }

    /// The bug zoo's check-then-act, stale snapshot and lock-order
    /// inversion shrink to at most 2 preemptions.
    func testTheZoosBugsShrinkToAtMostTwoPreemptions() throws {
        let cases: [(String, [String: ParameterValue], String, Int)] = [
            ("bank", ["variant": .text("check-then-act"), "accounts": .integer(4), "initial_balance": .integer(100),
                      "max_transfer": .integer(100), "withdraw_ratio": .number(0.45), "deposit_ratio": .number(0.4),
                      "close_ratio": .number(0)], "pthread-mutex", 2),
            ("cache", ["variant": .text("stale-snapshot"), "keys": .integer(4), "read_ratio": .number(0.5)], "pthread-mutex", 2),
            ("bank", ["variant": .text("lock-order-inversion"), "accounts": .integer(64), "audit_ratio": .number(0.3)], "pthread-mutex", 4),
        ]
        for (workload, parameters, strategy, threads) in cases {
            var settings = controlled(threads: threads)
            settings.shrinkNs = 20_000_000_000
            let outcome = ControlledTrialSupport.run(workload, parameters, strategy: strategy, settings: settings)
            let shrink = try XCTUnwrap(outcome.output?.shrink ?? outcome.stall?.shrink, "\(workload) \(parameters): \(outcome)")
            let trace = outcome.output?.trace ?? outcome.stall?.trace ?? []
            print("shrink \(workload)/\(parameters["variant"]!): \(shrink), trace \(trace.count) events")
            XCTAssertLessThanOrEqual(shrink.preemptionsAfter, 2, "\(workload) \(parameters)")
            XCTAssertLessThan(shrink.eventsAfter, shrink.eventsBefore)
            XCTAssertEqual(trace.count, shrink.eventsAfter)
        }
    }

    /// Eight workers: shrinking keeps two busy (the others idle), so the
    /// trace has two columns and one preemption.
    func testEightWorkersShrinkToTwoBusyOnes() throws {
        var settings = controlled(threads: 8)
        settings.shrinkNs = 20_000_000_000
        let outcome = ControlledTrialSupport.run("counter", ["variant": .text("split-rmw")], strategy: "unsynchronized", settings: settings)
        let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
        let shrink = try XCTUnwrap(output.shrink)
        let busy = try XCTUnwrap(shrink.busyWorkers, "\(shrink)")
        XCTAssertEqual(busy.count, 2, "\(shrink)")
        XCTAssertEqual(shrink.preemptionsAfter, 1)
        XCTAssertEqual(Set(output.trace?.map(\.worker) ?? []), Set(busy))
    }

    /// The bug zoo's check-then-act among eight workers: two withdrawals of
    /// one account race, so shrinking must busy those two (not workers 0
    /// and 1, whose first operations need not race) and cut the run to one
    /// preemption between a check and its debit. The budget is far beyond
    /// what the search takes (about 250 candidates), so the time bound
    /// never decides the result; the seed fixes everything else.
    func testCheckThenActAmongEightWorkersShrinksToTheTwoThatRace() throws {
        var settings = controlled(threads: 8, seed: 1, fuzz: .chaos)
        settings.shrinkNs = 300_000_000_000
        let outcome = ControlledTrialSupport.run(
            "bank", ["variant": .text("check-then-act"), "accounts": .integer(4), "initial_balance": .integer(100),
                     "max_transfer": .integer(100), "withdraw_ratio": .number(0.45), "deposit_ratio": .number(0.4),
                     "close_ratio": .number(0)],
            strategy: "pthread-mutex", settings: settings)
        let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
        let shrink = try XCTUnwrap(output.shrink)
        XCTAssertFalse(shrink.timedOut, "\(shrink)")
        let busy = try XCTUnwrap(shrink.busyWorkers, "\(shrink)")
        XCTAssertEqual(busy.count, 2, "\(shrink)")
        XCTAssertEqual(shrink.preemptionsAfter, 1, "\(shrink)")
        let trace = try XCTUnwrap(output.trace)
        XCTAssertEqual(Set(trace.map(\.worker)), Set(busy))
        XCTAssertTrue(output.violations.samples.contains { $0.message.hasPrefix("no overdraft: withdrawing") }, "\(output.violations)")
        // The preempted worker had checked and not yet debited.
        let preempted = try XCTUnwrap(trace.firstIndex { $0.preempted == true })
        let before = trace[..<preempted].last { $0.worker == trace[preempted].worker && $0.kind == .step }
        XCTAssertEqual(before?.name, "withdraw/debit", "\(trace)")
    }

    /// A budget too short for the space: the search stops, says it is not
    /// complete, and how much of the first schedule's branches it covered.
    func testExplorationStopsAtItsBudgetAndSaysHowFarItGot() throws {
        var settings = controlled(ops: 2)
        settings.exploration = ExplorationSettings(preemptions: 3, operations: 2, budgetNs: 1_000_000, pruning: false)
        let outcome = ControlledTrialSupport.run("counter", ["read_ratio": .number(1)], strategy: "unsynchronized", settings: settings)
        let exploration = try XCTUnwrap(outcome.output?.exploration, "\(String(describing: outcome.error))")
        XCTAssertFalse(exploration.complete)
        XCTAssertEqual(exploration.failed, 0)
        XCTAssertGreaterThanOrEqual(exploration.schedules, 1)
        let coverage = try XCTUnwrap(exploration.coverage)
        XCTAssertLessThan(coverage, 1)
    }
}
