import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
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
    /// certain even with more workers than cores and a busy machine (see
    /// docs/strategies.md for the measured reliability).
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
        XCTAssertEqual(report.trials.map(\.trial.strategy).sorted(), sharing.sorted())
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

    /// A transfer that re-enters the bank's own lock (a write on resource 0
    /// from inside a write on resource 0) ends as each strategy's descriptor
    /// says re-entry does (``ReentryBehavior``): completes under the reentrant
    /// ones; `deadlock` with the wait-for cycle where the thread blocks for good
    /// (the watchdog's verdict well inside the timeout, never a `timeout`);
    /// `crashed` with the primitive's message where it traps
    /// (`Synchronization.Mutex`, glibc's `EDEADLK` for `rwlock`), and with the
    /// harness's explanation where libdispatch traps without one.
    func testNestedTransactionEndsAsEachStrategysReentryPromises() throws {
        XCTAssert(FileManager.default.isExecutableFile(atPath: TestSupport.stressbenchPath),
                  "no stressbench executable next to the test bundle at \(TestSupport.stressbenchPath)")
        let strategies = Self.protecting.filter { !$0.lockFree }
        // What was observed when the facts were written down; strategies
        // merged later are checked against their own descriptors below.
        let known: [String: ReentryBehavior] = [
            "synchronized": .reenters, "recursive-lock": .reenters, "actor": .reenters, "global-actor": .reenters,
            "pthread-mutex": .deadlocks, "nslock": .deadlocks, "spinlock": .deadlocks,
            "mutex": .traps(message: "Recursive call to lock Mutex"), "rwlock": .traps(message: "Resource deadlock avoided"),
            "serial-queue": .traps(message: nil), "serial-queue-f": .traps(message: nil),
            "serial-queue-async": .traps(message: nil), "target-queue": .traps(message: nil),
            "rw-queue": .traps(message: nil), "rw-queue-f": .traps(message: nil), "rw-queue-async": .traps(message: nil),
        ]
        for s in strategies {
            if let expected = known[s.name] { XCTAssertEqual(s.reentry, expected, "\(s.name)'s descriptor") }
            XCTAssertEqual(s.reentrant, s.reentry == .reenters, "\(s.name): `reentrant` agrees with `reentry`")
        }
        XCTAssertEqual(Set(known.keys).subtracting(strategies.map(\.name)), [], "every strategy above is still registered")
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: bank
                parameters: {variant: nested-transaction}
                strategies: [\(Self.names(strategies))]
                threads: [2]
                ops: 2000
                warmup: 0s
                deadlock_after: 500ms
                timeout: 10s
            """)
        XCTAssertEqual(report.trials.map(\.trial.strategy), strategies.map(\.name))
        for (trial, strategy) in zip(report.trials, strategies) {
            WorkloadTestSupport.assertReentry(trial, strategy)
        }
    }

    func testASilentTrapOnANestedQueueSyncIsExplained() throws {
        let queue = try XCTUnwrap(Self.registry.strategy(named: "serial-queue")?.descriptor)
        let lock = try XCTUnwrap(Self.registry.strategy(named: "pthread-mutex")?.descriptor)
        let nested = [
            "stressbench: the trial process got SIGILL; where each worker was:",
            "stressbench:   worker 0: at a start barrier",
            "stressbench:   worker 1: transfer/move, holding and waiting to enter a nested section of resource 2 (inner: resource 2)",
        ]
        func explained(_ signal: String, _ tail: [String], _ strategy: StrategyDescriptor) -> String {
            let spec = TrialSpec(id: "e/\(strategy.name)/t2/r0", index: 0, plan: "p", experiment: "e", workload: "bank",
                                 parameters: WorkloadParameters([:]), strategy: strategy.name, threads: 2, repetition: 0,
                                 seed: 1, warmupNs: 0, durationNs: nil, opsPerThread: 10, timeoutNs: 1_000_000_000)
            let crashed = TrialResult.failed(spec, .crashed, FailureReport(message: "the trial process died of \(signal)",
                                                                            signal: signal, outputTail: tail))
            return crashed.explainingSilentTrap(strategy: strategy).failure?.message ?? ""
        }
        XCTAssertEqual(explained("SIGILL", nested, queue), """
            the trial process died of SIGILL; likely cause: libdispatch traps a dispatch_sync onto a queue the thread \
            is already running on, directly or through its target queue ('dispatch_sync called on queue already owned \
            by current thread'), and on Linux prints nothing: worker 1 (transfer/move) was entering resource 2 again \
            from inside it
            """)
        XCTAssertTrue(explained("SIGTRAP", nested.map { $0.replacingOccurrences(of: "(inner: resource 2)", with: "(inner: resource 3)") }, queue)
            .hasSuffix("worker 1 (transfer/move) was entering resource 3 from inside resource 2"))
        // Not explained: the runtime said why, the strategy is not a queue, no
        // worker was nesting, or it was not a trap.
        XCTAssertEqual(explained("SIGILL", ["Fatal error: boom"] + nested, queue), "the trial process died of SIGILL")
        XCTAssertEqual(explained("SIGILL", nested, lock), "the trial process died of SIGILL")
        XCTAssertEqual(explained("SIGILL", Array(nested.prefix(2)), queue), "the trial process died of SIGILL")
        XCTAssertEqual(explained("SIGSEGV", nested, queue), "the trial process died of SIGSEGV")
    }

    // MARK: Helpers

    private static func explain(_ result: TrialResult) -> String {
        if let failure = result.failure { return ([failure.message] + failure.outputTail.suffix(3)).joined(separator: " | ") }
        return result.violations.samples.first?.message ?? ""
    }
}
