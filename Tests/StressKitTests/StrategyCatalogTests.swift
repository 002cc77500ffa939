import Foundation
import StressKit
import XCTest

/// The strategy catalogue's promises (issue 3): every strategy but the
/// `unsynchronized` control keeps every correct workload's invariants; reader-
/// writer strategies let readers overlap and exclusive ones never do; the
/// reentrant ones complete a nested transaction and the others do not.
///
/// Trials run a fixed number of operations per thread (never a duration), and
/// nothing here asserts on speed.
final class StrategyCatalogTests: XCTestCase {
    private static let registry = StressRegistry.builtIn

    /// Every listed built-in strategy that promises protection.
    private static var protecting: [StrategyDescriptor] {
        registry.defaultStrategies.map(\.descriptor).filter(\.synchronizes)
    }

    private static func names(_ descriptors: [StrategyDescriptor]) -> String {
        descriptors.map(\.name).joined(separator: ", ")
    }

    // MARK: Correctness

    func testEveryProtectingStrategyKeepsCounterAndBankInvariants() throws {
        let all = Self.protecting
        let locking = all.filter { !$0.lockFree }
        XCTAssertFalse(all.contains { $0.name == "unsynchronized" })
        // Plain counter (every strategy, `atomic` through its lock-free form),
        // the counter with the occupancy probe (a writer inside with anyone else
        // is a violation), and the bank.
        let report = try TestSupport.runInProcess("""
            defaults: {threads: [1, 2, 4, 8], ops: 1000, warmup: 0s}
            experiments:
              - workload: counter
                parameters: {read_ratio: 0.3}
                strategies: [\(Self.names(all))]
              - name: counter-probed
                workload: counter
                parameters: {read_ratio: 0.5, track_occupancy: true}
                strategies: [\(Self.names(locking))]
              - workload: bank
                parameters: {accounts: 8, audit_ratio: 0.2}
                strategies: [\(Self.names(locking))]
            """)
        XCTAssertEqual(report.trials.count, 4 * (all.count + 2 * locking.count))
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(Self.explain(trial))")
            XCTAssertEqual(trial.violations.count, 0, trial.trial.id)
        }
    }

    func testAtomicLosesUpdatesWhenTheReadModifyWriteIsSplit() throws {
        // The lock-free form is checked too: a load and a separate store lose
        // increments even though each is atomic.
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                parameters: {variant: split-rmw}
                strategies: [atomic]
                threads: [4]
                ops: 200000
                warmup: 0s
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .violated)
        // Seen where it happens (by the exchange, on a worker at an op), and in the final count.
        let samples = trial.violations.samples
        XCTAssert(samples.contains { $0.message.hasPrefix("lost update:") && $0.thread != nil && $0.opNumber != nil },
                  Self.explain(trial))
        XCTAssert(samples.contains { $0.operation == "final-check" && $0.message.hasPrefix("final count") }, Self.explain(trial))
    }

    func testTheProbeHasNoLockFreeForm() {
        // Named explicitly, a lock-free strategy that cannot pair is a plan error.
        let problems = TestSupport.problems("""
            experiments:
              - workload: counter
                parameters: {track_occupancy: true}
                strategies: [atomic]
            """)
        XCTAssert(problems.contains { $0.message.contains("lock-free") }, "\(problems)")
    }

    // MARK: Reader parallelism

    /// A read-heavy counter whose reads each spin about 200 pause hints (some
    /// microseconds) inside their critical section, so that over 2,000
    /// operations a thread is nearly always inside a read when it is preempted
    /// or when another thread reaches its next read: overlap is then all but
    /// certain even with more workers than cores and a busy machine (see the
    /// README for the measured reliability).
    private static func occupancyPlan(_ strategies: [StrategyDescriptor]) -> String {
        """
        experiments:
          - workload: counter
            parameters: {read_ratio: 0.95, track_occupancy: true, read_spin: 200}
            strategies: [\(names(strategies))]
            threads: [4]
            ops: 2000
            warmup: 0s
        """
    }

    func testReaderWriterStrategiesLetReadersOverlap() throws {
        let sharing = ["rw-queue", "rw-queue-f", "rwlock"]
        let descriptors = Self.protecting.filter { sharing.contains($0.name) }
        XCTAssertEqual(descriptors.count, sharing.count)
        XCTAssert(descriptors.allSatisfy(\.sharedReads))
        let report = try TestSupport.runInProcess(Self.occupancyPlan(descriptors))
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(Self.explain(trial))")
            let readers = trial.measurement?.workloadMetrics["max_concurrent_readers"] ?? 0
            XCTAssertGreaterThanOrEqual(readers, 2, "\(trial.trial.strategy): readers never overlapped")
        }
    }

    func testExclusiveStrategiesNeverLetTwoWorkersIn() throws {
        let exclusive = Self.protecting.filter { !$0.sharedReads && !$0.lockFree }
        XCTAssertGreaterThanOrEqual(exclusive.count, 12)
        let report = try TestSupport.runInProcess(Self.occupancyPlan(exclusive))
        XCTAssertEqual(report.trials.count, exclusive.count)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, "\(trial.trial.id): \(Self.explain(trial))")
            let metrics = trial.measurement?.workloadMetrics ?? [:]
            XCTAssertEqual(metrics["max_concurrent_readers"], 1, trial.trial.strategy)
            XCTAssertEqual(metrics["max_inside"], 1, trial.trial.strategy)
        }
    }

    // MARK: Reentrancy

    /// What a strategy that cannot re-enter is recorded as when a transfer
    /// re-enters the bank's lock: `deadlock` when the thread blocks for good (the
    /// watchdog's verdict, with the wait-for cycle), `crashed` when the primitive
    /// traps instead (libdispatch on a `sync` onto the queue the thread is
    /// draining, `Synchronization.Mutex` on a recursive lock, `rwlock` on glibc's
    /// `EDEADLK`). Never `passed`, and never a `timeout` now that the watchdog
    /// reports a stuck trial well inside its timeout.
    static let acceptableWhenNotReentrant: Set<TrialOutcome> = [.deadlock, .crashed]

    func testNestedTransactionCompletesOnlyUnderReentrantStrategies() throws {
        XCTAssert(FileManager.default.isExecutableFile(atPath: TestSupport.stressbenchPath),
                  "no stressbench executable next to the test bundle at \(TestSupport.stressbenchPath)")
        let reentrant = ["synchronized", "recursive-lock", "actor", "global-actor"]
        let notReentrant = ["nslock", "pthread-mutex", "mutex", "serial-queue", "rw-queue",
                            "spinlock", "rwlock", "serial-queue-f", "rw-queue-f", "target-queue",
                            "serial-queue-async", "rw-queue-async"]
        // Every strategy that protects anything is in one list or the other.
        XCTAssertEqual(Set(reentrant + notReentrant),
                       Set(Self.protecting.filter { !$0.lockFree }.map(\.name)))
        for name in reentrant + notReentrant {
            let descriptor = try XCTUnwrap(Self.registry.strategy(named: name)?.descriptor, name)
            XCTAssertEqual(descriptor.reentrant, reentrant.contains(name), "\(name)'s descriptor")
        }
        // In child processes: the ones that cannot re-enter deadlock or trap.
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: bank
                parameters: {variant: nested-transaction}
                strategies: [\((reentrant + notReentrant).joined(separator: ", "))]
                threads: [2]
                ops: 2000
                warmup: 0s
                deadlock_after: 500ms
                timeout: 10s
            """)
        XCTAssertEqual(report.trials.count, reentrant.count + notReentrant.count)
        for result in report.trials {
            let name = result.trial.strategy
            if reentrant.contains(name) {
                XCTAssertEqual(result.outcome, .passed, "\(name): \(Self.explain(result))")
            } else {
                XCTAssert(Self.acceptableWhenNotReentrant.contains(result.outcome),
                          "\(name) did not fail the nested transaction as expected: \(result.outcome.rawValue) \(Self.explain(result))")
            }
        }
    }

    // MARK: Helpers

    private static func explain(_ result: TrialResult) -> String {
        if let failure = result.failure { return ([failure.message] + failure.outputTail.suffix(3)).joined(separator: " | ") }
        return result.violations.samples.first?.message ?? ""
    }
}
