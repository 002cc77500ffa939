@testable import StressCore
import StressKitTestSupport
import XCTest

/// Blocks submitted with `StressQueue.async` under control: the schedule's
/// queue workers run them, a `sync` waits behind them, what is left is
/// drained before the final check, and all of it replays by seed.
final class ControlledQueueTests: XCTestCase {
    private typealias Support = ControlledTrialSupport
    private let policies: [FuzzProfile] = [.off, .light, .yield, .chaos, .pct, .portfolio]

    private func run(_ shape: String, strategy: String = "unsynchronized", threads: Int = 3, seed: UInt64, fuzz: FuzzProfile,
                     ops: Int = 6) -> ControlledTrialSupport.Outcome {
        Support.run("test-controlled-queue", ["shape": .text(shape)], strategy: strategy,
                    settings: Support.settings(threads: threads, seed: seed, fuzz: fuzz, ops: ops))
    }

    /// A closed loop (setters `async`, getters `sync`) is correct on a
    /// serial queue and on a concurrent one with barrier writes: no
    /// violation under any policy and seed, control stays full, and every
    /// block ran before the final check.
    func testAClosedLoopPassesUnderEveryPolicyWithFullControl() throws {
        for shape in ["closed-loop", "barrier-loop", "after", "operations"] {
            for fuzz in policies {
                for seed in UInt64(1)...8 {
                    let outcome = run(shape, seed: seed, fuzz: fuzz)
                    let output = try XCTUnwrap(outcome.output, "\(shape) \(fuzz) \(seed): \(String(describing: outcome.error)) \(outcome.stall?.summary ?? "")")
                    XCTAssertEqual(output.violations.count, 0, "\(shape) \(fuzz) seed \(seed): \(String(describing: outcome.firstMessage))")
                    XCTAssertEqual(output.schedule.controlled, .full, "\(shape) \(fuzz) seed \(seed): \(output.schedule.escapes ?? [])")
                }
            }
        }
    }

    /// Reading what an `async` block writes without going through the queue
    /// is a bug the schedule finds: by a fixed seed, every time, with the
    /// identical schedule on each replay.
    func testAReadThatDoesNotWaitForItsAsyncWriteIsFoundAndReplays() throws {
        for fuzz in [FuzzProfile.pct, .chaos, .off] {
            let first = run("read-outside", seed: 3, fuzz: fuzz)
            let output = try XCTUnwrap(first.output, "\(fuzz): \(String(describing: first.error))")
            XCTAssertGreaterThan(output.violations.count, 0, "\(fuzz)")
            XCTAssertTrue(first.firstMessage?.contains("outside the queue") == true, "\(fuzz): \(String(describing: first.firstMessage))")
            XCTAssertEqual(output.schedule.controlled, .full)
            for _ in 0..<3 {
                let again = run("read-outside", seed: 3, fuzz: fuzz)
                XCTAssertEqual(again.output?.schedule.encoded, output.schedule.encoded, "\(fuzz)")
                XCTAssertEqual(again.firstMessage, first.firstMessage, "\(fuzz)")
            }
        }
    }

    /// An `OperationQueue`-shaped queue read without waiting for its
    /// operations: found by a fixed seed every time, with the same schedule.
    func testAnOperationReadBeforeTheQueueIsWaitedForIsFound() throws {
        let first = run("operations-unwaited", seed: 3, fuzz: .pct)
        let output = try XCTUnwrap(first.output, "\(String(describing: first.error))")
        XCTAssertGreaterThan(output.violations.count, 0)
        XCTAssertEqual(output.schedule.controlled, .full)
        let again = run("operations-unwaited", seed: 3, fuzz: .pct)
        XCTAssertEqual(again.output?.schedule.encoded, output.schedule.encoded)
        XCTAssertEqual(again.firstMessage, first.firstMessage)
    }

    /// What a block reports with `reportViolation` on its queue worker
    /// counts for the trial.
    func testAViolationReportedFromAQueuedBlockCounts() throws {
        let outcome = run("report-in-block", threads: 2, seed: 1, fuzz: .yield, ops: 3)
        let output = try XCTUnwrap(outcome.output)
        XCTAssertEqual(output.violations.count, 6, "\(output.violations.samples.map(\.message))")
        XCTAssertTrue(output.violations.samples.contains { $0.message == "reported from a block of the queue" })
    }

    /// A scenario's round ends only once the blocks its roles submitted
    /// have run: its arbiter always sees them, under every policy.
    func testARoundsBlocksRunBeforeItsArbiter() throws {
        for fuzz in policies {
            for seed in UInt64(1)...4 {
                var settings = Support.settings(threads: 2, seed: seed, fuzz: fuzz, maxDecisions: 3_000)
                settings.stop = .duration(nanoseconds: 60_000_000_000)
                let outcome = Support.run("test-controlled-queue-round", strategy: "unsynchronized", settings: settings, scenario: true)
                let output = try XCTUnwrap(outcome.output, "\(fuzz) \(seed): \(String(describing: outcome.error)) \(outcome.stall?.summary ?? "")")
                XCTAssertEqual(output.violations.count, 0, "\(fuzz) \(seed): \(String(describing: outcome.firstMessage))")
                XCTAssertEqual(output.schedule.controlled, .full, "\(fuzz) \(seed): \(output.schedule.escapes ?? [])")
                XCTAssertGreaterThan(output.rounds?.rounds ?? 0, 10, "\(fuzz) \(seed)")
            }
        }
    }

    /// The queue workers are participants of the schedule after the thread
    /// workers and the main thread's index (w3 here, w4 to w7 the queue
    /// workers): their decisions are in the encoded schedule, which a forced
    /// replay follows to the same end.
    func testQueueWorkersAreInTheScheduleAndAForcedReplayFollowsIt() throws {
        let first = run("closed-loop", seed: 5, fuzz: .chaos)
        let output = try XCTUnwrap(first.output)
        let decisions = try ScheduleEncoding.decode(output.schedule.encoded ?? "")
        XCTAssertEqual(decisions.count, output.schedule.decisions)
        XCTAssertTrue(decisions.contains { $0 >= 4 }, "a queue worker ran: \(output.schedule.encoded ?? "")")
        XCTAssertFalse(decisions.contains(3), "the main thread takes no part in a test process: \(output.schedule.encoded ?? "")")
        let forced = Support.run("test-controlled-queue", ["shape": .text("closed-loop")], strategy: "unsynchronized",
                                 settings: Support.settings(threads: 3, seed: 5, fuzz: .pct, ops: 6, forced: decisions))
        XCTAssertEqual(forced.output?.schedule.encoded, output.schedule.encoded)
    }

    /// The main thread and the queue workers in one trial, where the main
    /// thread serves the main queue: a main-queue block submits to a queue,
    /// a queue's block to the main queue, and `sync`s to both wait their
    /// turn. Correct under every kind of policy and many seeds, control
    /// full, both drained before the final check; the schedule names the
    /// main thread (`w2`, one past the two workers) and a queue worker (`w3`
    /// on); and a seed replays its schedule.
    func testTheMainThreadAndTheQueueWorkersRunTogether() throws {
        // XCTest runs a test on the main thread; elsewhere nothing would be
        // known to serve the main queue, and the main thread takes no part.
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        func together(seed: UInt64, fuzz: FuzzProfile) -> (encoded: String?, violations: Int?, control: ScheduleRecord.Coverage?,
                                                          problem: String?) {
            MainThreadService.run {
                let outcome = Support.run("test-controlled-queue", ["shape": .text("main-and-queue")], strategy: "unsynchronized",
                                          settings: Support.settings(threads: 2, seed: seed, fuzz: fuzz, ops: 6))
                return (outcome.output?.schedule.encoded, outcome.output?.violations.count, outcome.output?.schedule.controlled,
                        outcome.firstMessage ?? outcome.stall?.summary ?? outcome.error.map { "\($0)" })
            }
        }
        for fuzz in [FuzzProfile.off, .yield, .chaos, .pct] {
            for seed in UInt64(1)...5 {
                let run = together(seed: seed, fuzz: fuzz)
                XCTAssertEqual(run.violations, 0, "\(fuzz) seed \(seed): \(run.problem ?? "")")
                XCTAssertEqual(run.control, .full, "\(fuzz) seed \(seed)")
                let decisions = try ScheduleEncoding.decode(run.encoded ?? "", workers: 2)
                XCTAssertTrue(decisions.contains(2), "the main thread ran: \(fuzz) seed \(seed): \(run.encoded ?? "")")
                XCTAssertTrue(decisions.contains { $0 >= 3 }, "a queue worker ran: \(fuzz) seed \(seed): \(run.encoded ?? "")")
            }
        }
        let first = together(seed: 4, fuzz: .pct)
        XCTAssertNotNil(first.encoded)
        XCTAssertEqual(together(seed: 4, fuzz: .pct).encoded, first.encoded, "the same seed, the same schedule")
    }

    /// A worker that holds a lock and waits for a queue whose block wants
    /// that lock: a deadlock with the queue's worker, found when its cycle
    /// closes, naming the queue worker.
    func testADeadlockWithAQueuedBlockIsFoundAtOnce() throws {
        for fuzz in [FuzzProfile.pct, .chaos] {
            let outcome = run("lock-inversion", threads: 2, seed: 1, fuzz: fuzz)
            let stall = try XCTUnwrap(outcome.stall, "\(fuzz): \(String(describing: outcome.output?.violations))")
            XCTAssertEqual(stall.kind, .deadlock)
            XCTAssertTrue(stall.summary.contains("the queue worker of the queue 'probe.async-serial'"), stall.summary)
        }
    }

    /// The strategies that write with `async` run under control: no
    /// violation on the counter, control full, by seed.
    func testTheAsyncStrategiesRunUnderControl() throws {
        for strategy in ["serial-queue-async", "rw-queue-async"] {
            for fuzz in [FuzzProfile.pct, .chaos, .yield] {
                for seed in UInt64(1)...3 {
                    let outcome = Support.run("counter", strategy: strategy, settings: Support.settings(threads: 4, seed: seed, fuzz: fuzz, ops: 40))
                    let output = try XCTUnwrap(outcome.output, "\(strategy): \(String(describing: outcome.error)) \(outcome.stall?.summary ?? "")")
                    XCTAssertEqual(output.violations.count, 0, "\(strategy) \(fuzz) \(seed): \(String(describing: outcome.firstMessage))")
                    XCTAssertEqual(output.schedule.controlled, .full, "\(strategy): \(output.schedule.escapes ?? [])")
                    let again = Support.run("counter", strategy: strategy, settings: Support.settings(threads: 4, seed: seed, fuzz: fuzz, ops: 40))
                    XCTAssertEqual(again.output?.schedule.encoded, output.schedule.encoded, "\(strategy) \(fuzz) \(seed)")
                }
            }
        }
    }
}
