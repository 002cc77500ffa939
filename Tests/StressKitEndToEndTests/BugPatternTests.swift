import StressKit
import StressKitTestSupport
import XCTest

/// `Plans/bugs.yaml`, run as docs/workloads.md shows it (each trial in a child process
/// of the built `stressbench`, with the plan's fixed seed and budgets): every
/// bug pattern is detected under every strategy where the bug is real, with a
/// message naming the broken invariant, and leaves alone the strategies where
/// it is not. Strategies are classified by their descriptors, so ones merged
/// later are covered without touching this file.
///
/// `scripts/detection-rates.sh Plans/bugs.yaml 50` measures how many of 50
/// seeds find each trial's bug. With the plan's `yield` fuzzing and a trial
/// that ends at its first violation, every cell where the bug is real found it
/// in 50 of 50 (median time to it 0.3 to 51 ms; debug build, 2-core machine, 2026-11-23;
/// docs/benchmarks/detection-rates-bugs-yaml-2026-11-23.txt) and every other
/// cell passed 50 of 50, so each trial here must show exactly its expectation.
final class BugPatternTests: XCTestCase {
    /// What one trial must show.
    enum Expectation: Sendable {
        /// An invariant broke; some message starts with one of these invariant names.
        case violated([String])
        /// A deadlock (the watchdog's, with the wait-for cycle) or a trap on one.
        case stuck
        /// Exactly what the strategy's descriptor says re-entering a critical
        /// section one holds does (``ReentryBehavior``).
        case reentry
        /// The bug is not real for this strategy: the trial passes.
        case unaffected
    }

    /// Invariant names the messages of each workload start with.
    private enum Invariants {
        /// The store sees it, on the thread and at the op where it happens
        /// (the final count check sees it too, but names no thread).
        static let counter = ["lost update"]
        /// A deposit split across two sections loses whichever write lands
        /// between them: another deposit's (the total no longer adds up) or a
        /// close's (the account closed at zero, and the deposit's store puts
        /// money back into it). Which a run sees first is a matter of timing.
        static let lostDeposit = ["conservation", "closed accounts hold nothing"]
        static let overdraft = ["no overdraft"]
        static let cache = ["read-your-writes", "monotonic reads", "no lost update", "value integrity"]
        static let atomicity = ["atomicity", "conservation", "no overdraft"]
        static let lazyInit = ["initialized before published", "factory runs once per generation", "one instance per generation"]
        static let lifecycle = ["start once", "state only moves forward", "finish exactly once", "completion fires once", "cancellation error"]
        static let bank = ["conservation", "no overdraft", "closed accounts hold nothing"]
    }

    /// The experiments of bugs.yaml and what each must show under a strategy.
    static let patterns: [String: @Sendable (StrategyDescriptor) -> Expectation] = [
        "lost-update-counter": { _ in .violated(Invariants.counter) },
        "lost-update-bank": { _ in .violated(Invariants.lostDeposit) },
        "check-then-act": { s in
            // The control breaks everything at once; the first break it sees may be any.
            s.synchronizes ? .violated(Invariants.overdraft) : .violated(Invariants.bank)
        },
        "stale-snapshot": { _ in .violated(Invariants.cache) },
        "nested-transaction": { s in
            if !s.synchronizes { return .violated(Invariants.bank) }
            return .reentry
        },
        "lock-order-inversion": { s in
            // One reentrant domain for both branches (a global actor): the inner
            // access is a plain call inside it, so there is no inversion to
            // suffer. (Queues on one target re-enter it too, and deadlock.)
            if s.singleDomain && s.reentrant { return .unaffected }
            return s.synchronizes && s.execution == .threads ? .stuck : .violated(Invariants.atomicity)
        },
        "write-through-read": { s in s.sharedReads ? .violated(Invariants.cache) : .unaffected },
        "publish-before-initialize": { _ in .violated(Invariants.lazyInit) },
        "actor-reentrancy": { _ in .violated(Invariants.lifecycle) },
    ]

    private func loadPlan() throws -> Plan {
        try PlanLoader(registry: .builtIn).load(file: WorkloadTestSupport.path("Plans/bugs.yaml"))
    }

    /// Runs one experiment of the plan and checks every trial against its expectation.
    private func check(_ experiment: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expect = try XCTUnwrap(Self.patterns[experiment], file: file, line: line)
        let plan = try loadPlan()
        let runner = PlanRunner(registry: .builtIn, options: RunOptions(isolation: TestSupport.childIsolation, only: [experiment]))
        let report = try runner.run(plan)
        // What `strategies: all` expanded to: every registered strategy but the
        // lock-free ones, which come too when the workload has a lock-free form.
        let planned = try XCTUnwrap(plan.experiments.first { $0.name == experiment }, file: file, line: line).strategies
        let strategies = StressRegistry.builtIn.defaultStrategies.map(\.descriptor).filter { planned.contains($0.name) }
        XCTAssertEqual(Set(WorkloadTestSupport.pairableStrategies.map(\.name)).subtracting(planned), [],
                       "`all` covers every strategy that pairs with any workload", file: file, line: line)
        XCTAssertEqual(report.trials.map(\.trial.strategy), strategies.map(\.name), "one trial per strategy", file: file, line: line)
        for trial in report.trials {
            let strategy = try XCTUnwrap(strategies.first { $0.name == trial.trial.strategy }, file: file, line: line)
            let what = WorkloadTestSupport.describe(trial)
            switch expect(strategy) {
            case .violated(let invariants):
                XCTAssertEqual(trial.outcome, .violated, what, file: file, line: line)
                assertNames(invariants, trial, file: file, line: line)
            case .stuck:
                XCTAssertTrue([.deadlock, .crashed].contains(trial.outcome), what, file: file, line: line)
                if trial.outcome == .deadlock {
                    XCTAssertFalse(trial.stall?.cycle?.isEmpty ?? true, "a deadlock comes with its wait-for cycle: \(what)", file: file, line: line)
                } else {
                    XCTAssertNotNil(trial.failure?.signal, what, file: file, line: line)
                }
            case .reentry:
                WorkloadTestSupport.assertReentry(trial, strategy, file: file, line: line)
            case .unaffected:
                XCTAssertEqual(trial.outcome, .passed, what, file: file, line: line)
            }
        }
    }

    /// Some violation message names one of `invariants`, and worker-side ones
    /// say on which thread and at which op.
    private func assertNames(_ invariants: [String], _ trial: TrialResult, file: StaticString, line: UInt) {
        let samples = trial.violations.samples
        XCTAssertTrue(samples.contains { s in invariants.contains { s.message.hasPrefix($0 + ":") || s.message.hasPrefix($0 + " ") } },
                      "\(trial.trial.id): no message names \(invariants): \(samples.map(\.message))", file: file, line: line)
        for s in samples where s.operation != "final-check" {
            XCTAssertNotNil(s.thread, s.summaryLine, file: file, line: line)
            XCTAssertNotNil(s.opNumber, s.summaryLine, file: file, line: line)
        }
    }

    func testThePlanHasExactlyThesePatterns() throws {
        XCTAssertEqual(Set(try loadPlan().experiments.map(\.name)), Set(Self.patterns.keys))
    }

    func testLostUpdateOnACounter() throws { try check("lost-update-counter") }
    func testLostUpdateOnABankDeposit() throws { try check("lost-update-bank") }
    func testCheckThenActOverdraws() throws { try check("check-then-act") }
    func testStaleSnapshotWrittenBackLosesTheOtherField() throws { try check("stale-snapshot") }
    func testNestedTransactionDeadlocksNonRecursiveStrategies() throws { try check("nested-transaction") }
    func testLockOrderInversionDeadlocksLocksAndBreaksActorAtomicity() throws { try check("lock-order-inversion") }
    func testWriteThroughTheReadSideBreaksOnlySharedReaders() throws { try check("write-through-read") }
    func testPublishBeforeInitializeShowsUninitializedData() throws { try check("publish-before-initialize") }
    func testActorReentrancyActsOnAStaleCheck() throws { try check("actor-reentrancy") }
}
