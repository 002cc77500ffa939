@testable import StressCore
import StressKitTestSupport
import XCTest

/// Controlled scheduling of thread workers: the same seed makes the same
/// decisions, blocking is modelled, and what control cannot see is said.
final class ControlledSchedulingTests: XCTestCase {
    private typealias Support = ControlledTrialSupport
    private let splitRMW: [String: ParameterValue] = ["variant": .text("split-rmw"), "read_ratio": .number(0.2)]

    func testALostUpdateIsFoundAndReplaysWithTheIdenticalSchedule() throws {
        for policy in [FuzzProfile.pct, .yield, .off] {
            let first = Support.run("counter", splitRMW, strategy: "unsynchronized", settings: Support.settings(threads: 4, seed: 7, fuzz: policy))
            let output = try XCTUnwrap(first.output, "\(String(describing: first.error))")
            XCTAssertGreaterThan(output.violations.count, 0, "\(policy)")
            XCTAssertEqual(output.schedule.mode, .controlled)
            XCTAssertEqual(output.schedule.controlled, .full)
            XCTAssertEqual(try ScheduleEncoding.decode(output.schedule.encoded ?? "").count, output.schedule.decisions)
            for _ in 0..<3 {
                let again = Support.run("counter", splitRMW, strategy: "unsynchronized", settings: Support.settings(threads: 4, seed: 7, fuzz: policy))
                XCTAssertEqual(again.output?.schedule.encoded, output.schedule.encoded, "\(policy)")
                XCTAssertEqual(again.firstMessage, first.firstMessage, "\(policy)")
            }
        }
    }

    /// A recorded schedule, followed under another policy, runs the same
    /// interleaving to the same failure (the seed still picks each worker's
    /// operations, so it stays the same).
    func testAForcedScheduleIsFollowedExactly() throws {
        let first = Support.run("counter", splitRMW, strategy: "unsynchronized", settings: Support.settings(threads: 3, seed: 11, fuzz: .pct))
        let recorded = try XCTUnwrap(first.output?.schedule.encoded)
        let decisions = try ScheduleEncoding.decode(recorded, workers: 3)
        let replayed = Support.run("counter", splitRMW, strategy: "unsynchronized",
                                   settings: Support.settings(threads: 3, seed: 11, fuzz: .yield, forced: decisions))
        XCTAssertEqual(replayed.output?.schedule.encoded, recorded)
        XCTAssertEqual(replayed.firstMessage, first.firstMessage)
    }

    /// Correct strategies under a correct workload: never a violation, never
    /// a false deadlock, under every policy and many seeds.
    func testCorrectStrategiesShowNothingUnderAnyPolicy() throws {
        let strategies = ["pthread-mutex", "nslock", "mutex", "spinlock", "recursive-lock", "synchronized", "rwlock",
                          "serial-queue", "rw-queue", "target-queue", "semaphore", "condition"]
        for (i, strategy) in strategies.enumerated() {
            for (j, policy) in [FuzzProfile.off, .light, .yield, .chaos, .pct].enumerated() {
                let seed = UInt64(100 + i * 10 + j)
                for workload in ["counter", "bank"] {
                    let outcome = Support.run(workload, ["read_ratio": .number(0.3)].filter { _ in workload == "counter" }, strategy: strategy,
                                              settings: Support.settings(threads: 3, seed: seed, fuzz: policy, maxDecisions: 3_000))
                    XCTAssertNil(outcome.stall, "\(workload) \(strategy) \(policy): \(outcome.stall?.summary ?? "")")
                    XCTAssertEqual(outcome.output?.violations.count, 0, "\(workload) \(strategy) \(policy) seed \(seed): \(outcome.firstMessage ?? "") \(String(describing: outcome.error))")
                    // The trial stops at its 3,000th decision; the workers then finish their operations.
                    XCTAssertGreaterThanOrEqual(outcome.output?.schedule.decisions ?? 0, 3_000, "\(workload) \(strategy) \(policy)")
                }
            }
        }
    }

    func testEveryPrimitiveExcludesUnderControl() throws {
        for (seed, policy) in [(1, FuzzProfile.off), (2, .yield), (3, .pct), (4, .chaos)] {
            let outcome = Support.run("test-controlled-probe", ["shape": .text("primitives")], strategy: "unsynchronized",
                                      settings: Support.settings(threads: 3, seed: UInt64(seed), fuzz: policy, maxDecisions: 5_000))
            XCTAssertNil(outcome.stall, "\(policy): \(outcome.stall?.summary ?? "")")
            XCTAssertEqual(outcome.output?.violations.count, 0, "\(policy): \(outcome.firstMessage ?? "") \(String(describing: outcome.error))")
            XCTAssertEqual(outcome.output?.schedule.controlled, .full)
        }
    }

    func testAConditionHandOffRunsUnderControl() throws {
        for policy in [FuzzProfile.off, .yield, .pct] {
            let outcome = Support.run("test-controlled-probe", ["shape": .text("handoff")], strategy: "unsynchronized",
                                      settings: Support.settings(threads: 2, seed: 5, fuzz: policy, maxDecisions: 4_000))
            XCTAssertNil(outcome.stall, "\(policy): \(outcome.stall?.summary ?? "")")
            XCTAssertEqual(outcome.output?.violations.count, 0, "\(policy)")
        }
    }

    /// A deadline nobody can beat passes on the virtual clock: at once, not
    /// after its 60 seconds.
    func testATimedWaitTimesOutOnTheVirtualClock() throws {
        let outcome = Support.run("test-controlled-probe", ["shape": .text("timed-wait")], strategy: "unsynchronized",
                                  settings: Support.settings(threads: 2, seed: 3, fuzz: .yield, ops: 20))
        XCTAssertNil(outcome.stall, outcome.stall?.summary ?? "")
        XCTAssertEqual(outcome.output?.violations.count, 0, outcome.firstMessage ?? "")
        XCTAssertEqual(outcome.output?.measurement.totalOps, 40)
    }

    func testALockTakenTwiceIsADeadlockFoundAtOnce() throws {
        let outcome = Support.run("test-controlled-probe", ["shape": .text("relock")], strategy: "unsynchronized",
                                  settings: Support.settings(threads: 2, seed: 1, fuzz: .yield))
        let stall = try XCTUnwrap(outcome.stall, "no deadlock: \(String(describing: outcome.output?.schedule))")
        XCTAssertEqual(stall.kind, .deadlock)
        XCTAssertTrue(stall.summary.contains("found at once by controlled scheduling"), stall.summary)
        XCTAssertEqual(stall.schedule?.mode, .controlled)
        XCTAssertNotNil(stall.cycle, stall.summary)
    }

    func testALockOrderInversionIsADeadlockWithItsCycle() throws {
        for seed in 1...5 {
            let outcome = Support.run("test-controlled-probe", ["shape": .text("lock-order")], strategy: "unsynchronized",
                                      settings: Support.settings(threads: 2, seed: UInt64(seed), fuzz: .yield))
            let stall = try XCTUnwrap(outcome.stall, "seed \(seed): no deadlock")
            XCTAssertEqual(stall.kind, .deadlock)
            XCTAssertEqual(stall.cycle?.count, 2, stall.summary)
        }
    }

    func testAStrategyLockOrderInversionIsADeadlockFoundAtOnce() throws {
        let outcome = Support.run("bank", ["variant": .text("lock-order-inversion"), "accounts": .integer(4), "audit_ratio": .number(0.3)],
                                  strategy: "pthread-mutex", settings: Support.settings(threads: 4, seed: 4, fuzz: .pct))
        let stall = try XCTUnwrap(outcome.stall, "no deadlock")
        XCTAssertEqual(stall.kind, .deadlock)
        XCTAssertNotNil(stall.cycle, stall.summary)
    }

    func testANestedTransactionOnAPlainLockWaitsForItself() throws {
        let outcome = Support.run("bank", ["variant": .text("nested-transaction")], strategy: "nslock",
                                  settings: Support.settings(threads: 2, seed: 1, fuzz: .off))
        let stall = try XCTUnwrap(outcome.stall, "no deadlock")
        XCTAssertEqual(stall.kind, .deadlock)
        XCTAssertTrue(stall.summary.contains("found at once"), stall.summary)
    }

    func testSpinningWorkersAreALivelock() throws {
        let outcome = Support.run("test-controlled-probe", ["shape": .text("livelock")], strategy: "unsynchronized",
                                  settings: Support.settings(threads: 2, seed: 1, fuzz: .pct, maxDecisions: 1_000_000))
        let stall = try XCTUnwrap(outcome.stall, "no livelock")
        XCTAssertEqual(stall.kind, .hang)
        XCTAssertTrue(stall.summary.hasPrefix("livelock:"), stall.summary)
    }

    func testWorkSubmittedWithAsyncStaysUnderControl() throws {
        let outcome = Support.run("test-controlled-probe", ["shape": .text("async")], strategy: "unsynchronized",
                                  settings: Support.settings(threads: 2, seed: 1, fuzz: .yield, ops: 50))
        let schedule = try XCTUnwrap(outcome.output?.schedule)
        XCTAssertEqual(schedule.controlled, .full, "\(schedule)")
    }

    func testTaskStrategiesAreRefused() throws {
        for strategy in ["actor"] {
            let outcome = Support.run("counter", strategy: strategy, settings: Support.settings(threads: 2, seed: 1, fuzz: .off))
            XCTAssertTrue("\(String(describing: outcome.error))".contains("schedule controlled"), "\(strategy): \(String(describing: outcome.error))")
        }
    }

    /// Spurious wake-ups, a seeded option: code that waits in an `if` breaks
    /// under them, code that waits in a `while` does not.
    func testSpuriousWakeUpsBreakAnIfButNotAWhile() throws {
        var settings = Support.settings(threads: 2, seed: 2, fuzz: .yield, maxDecisions: 4_000)
        let plain = Support.run("test-controlled-probe", ["shape": .text("handoff-if")], strategy: "unsynchronized", settings: settings)
        XCTAssertEqual(plain.output?.violations.count, 0, "without spurious wake-ups the if is never caught out")
        settings.fuzz.spuriousWakeups = 0.2
        let spurious = Support.run("test-controlled-probe", ["shape": .text("handoff-if")], strategy: "unsynchronized", settings: settings)
        XCTAssertGreaterThan(spurious.output?.violations.count ?? 0, 0, "\(String(describing: spurious.output?.schedule))")
        let again = Support.run("test-controlled-probe", ["shape": .text("handoff-if")], strategy: "unsynchronized", settings: settings)
        XCTAssertEqual(again.output?.schedule.encoded, spurious.output?.schedule.encoded)
        let correct = Support.run("test-controlled-probe", ["shape": .text("handoff")], strategy: "unsynchronized", settings: settings)
        XCTAssertNil(correct.stall, correct.stall?.summary ?? "")
        XCTAssertEqual(correct.output?.violations.count, 0)
    }

    /// A lock the harness cannot see: its waiter blocks in the kernel while
    /// holding the token; the escape monitor lets the others go on, and the
    /// trial says control was partial, and where.
    func testCodeThatBlocksOutsideTheModelMakesControlPartial() throws {
        let outcome = Support.run("test-controlled-probe", ["shape": .text("plain-lock")], strategy: "unsynchronized",
                                  settings: Support.settings(threads: 2, seed: 1, fuzz: .off, ops: 20))
        XCTAssertNil(outcome.stall, outcome.stall?.summary ?? "")
        let schedule = try XCTUnwrap(outcome.output?.schedule, String(describing: outcome.error))
        XCTAssertEqual(outcome.output?.measurement.totalOps, 40)
        XCTAssertEqual(schedule.controlled, .partial)
        XCTAssertTrue(schedule.escapes?.first?.contains("blocked in the kernel in step probe/call") == true, "\(schedule)")
    }

    /// One lock, two conditions over it (the bounded buffer of pthread code),
    /// and a queue's specific read back inside its block: correct under
    /// control, under every policy. (A count of operations, the same for
    /// producers and consumers, so that nobody is left waiting at the end.)
    func testTwoConditionsOnOneLockAndQueueSpecificsRunUnderControl() throws {
        for (seed, policy) in [(1, FuzzProfile.off), (2, .yield), (3, .pct)] {
            for shape in ["bounded-buffer", "specific"] {
                let outcome = Support.run("test-controlled-probe", ["shape": .text(shape)], strategy: "unsynchronized",
                                          settings: Support.settings(threads: 4, seed: UInt64(seed), fuzz: policy, ops: 200))
                XCTAssertNil(outcome.stall, "\(shape) \(policy): \(outcome.stall?.summary ?? "")")
                XCTAssertEqual(outcome.output?.measurement.totalOps, 800, "\(shape) \(policy)")
                XCTAssertEqual(outcome.output?.violations.count, 0, "\(shape) \(policy): \(outcome.firstMessage ?? "")")
            }
        }
    }

    /// Two workers in a lock-order cycle while two others go on: a deadlock
    /// of the two, found the moment the cycle closes.
    func testAPartialDeadlockIsFoundWhenItsCycleCloses() throws {
        for seed in 1...3 {
            let outcome = Support.run("test-controlled-probe", ["shape": .text("partial-lock-order")], strategy: "unsynchronized",
                                      settings: Support.settings(threads: 4, seed: UInt64(seed), fuzz: .yield))
            let stall = try XCTUnwrap(outcome.stall, "seed \(seed): no deadlock")
            XCTAssertEqual(stall.kind, .deadlock)
            XCTAssertEqual(stall.partial, true, stall.summary)
            XCTAssertEqual(stall.cycle?.count, 2, stall.summary)
            XCTAssertLessThan(stall.schedule?.decisions ?? .max, 20_000, stall.summary)
        }
    }
}
