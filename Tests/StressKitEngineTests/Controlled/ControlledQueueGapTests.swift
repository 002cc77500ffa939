@testable import StressCore
import StressKitTestSupport
import XCTest

/// What the queue workers once left to dispatch: a fifth queue (and past
/// the last queue worker, a record that says why), `async(group:)`,
/// `StressQueue.main.asyncAfter`; and a queue's block that blocks where the
/// model cannot see, which the escape monitor notices.
final class ControlledQueueGapTests: XCTestCase {
    private typealias Support = ControlledTrialSupport
    private let policies: [FuzzProfile] = [.off, .yield, .chaos, .pct, .portfolio]

    private static func run(_ shape: String, threads: Int = 3, seed: UInt64, fuzz: FuzzProfile, ops: Int = 10,
                     forced: [Int]? = nil) -> ControlledTrialSupport.Outcome {
        Support.run("test-controlled-queue", ["shape": .text(shape)], strategy: "unsynchronized",
                    settings: Support.settings(threads: threads, seed: seed, fuzz: fuzz, ops: ops, forced: forced))
    }

    private static func problem(_ outcome: ControlledTrialSupport.Outcome) -> String {
        outcome.firstMessage ?? outcome.stall?.summary ?? outcome.error.map { "\($0)" } ?? ""
    }

    /// The closed loop on five serial queues at once, and with each block in
    /// a `DispatchGroup` (`async(group:)`: the group is entered at submit and
    /// left once the block ran): correct under every kind of policy and many
    /// seeds, control full, every block drained; and a forced replay of a
    /// seed's schedule follows it to the same end.
    func testFiveQueuesAndGroupedBlocksAreFullyControlled() throws {
        for shape in ["five-queues", "group"] {
            for fuzz in policies {
                for seed in UInt64(1)...6 {
                    let outcome = Self.run(shape, seed: seed, fuzz: fuzz)
                    let output = try XCTUnwrap(outcome.output, "\(shape) \(fuzz) \(seed): \(Self.problem(outcome))")
                    XCTAssertNil(outcome.stall, "\(shape) \(fuzz) seed \(seed): \(Self.problem(outcome))")
                    XCTAssertEqual(output.violations.count, 0, "\(shape) \(fuzz) seed \(seed): \(Self.problem(outcome))")
                    XCTAssertEqual(output.schedule.controlled, .full, "\(shape) \(fuzz) seed \(seed): \(output.schedule.escapes ?? [])")
                    XCTAssertEqual(output.measurement.totalOps, 30, "\(shape) \(fuzz) seed \(seed)")
                }
            }
            let first = try XCTUnwrap(Self.run(shape, seed: 4, fuzz: .chaos).output)
            let decisions = try ScheduleEncoding.decode(first.schedule.encoded ?? "", workers: 3)
            if shape == "five-queues" {
                // The fifth queue's worker: threads 0-2, the main thread's
                // slot 3, queue workers 4 on.
                XCTAssertTrue(decisions.contains(8), "the fifth queue's worker ran: \(first.schedule.encoded ?? "")")
            }
            XCTAssertEqual(Self.run(shape, seed: 4, fuzz: .chaos).output?.schedule.encoded, first.schedule.encoded, "\(shape): same seed")
            let forced = Self.run(shape, seed: 4, fuzz: .pct, forced: decisions)
            XCTAssertEqual(forced.output?.schedule.encoded, first.schedule.encoded, "\(shape): a forced replay follows it")
        }
    }

    /// A ninth serial queue, while eight are busy, finds every queue worker
    /// taken: its block runs on a dispatch thread, the trial still passes,
    /// and the record says why (not a bare "partial"). (A queue that is idle
    /// gives its worker up to a new one: the scenario of
    /// `ControlledQueueTests`, with a new queue every round, stays full.)
    func testAQueuePastTheQueueWorkersIsToldInTheRecord() throws {
        for fuzz in [FuzzProfile.off, .pct] {
            let outcome = Self.run("nine-queues", threads: 1, seed: 1, fuzz: fuzz, ops: 3)
            let output = try XCTUnwrap(outcome.output, "\(fuzz): \(Self.problem(outcome))")
            XCTAssertNil(outcome.stall, "\(fuzz): \(Self.problem(outcome))")
            XCTAssertEqual(output.violations.count, 0, "\(fuzz): \(Self.problem(outcome))")
            XCTAssertEqual(output.schedule.controlled, .partial, "\(fuzz)")
            XCTAssertTrue(output.schedule.escapes?.contains {
                $0.hasPrefix("the queue 'probe.queue-8' found every one of a controlled trial's 8 queue workers serving another queue")
            } == true, "\(fuzz): \(output.schedule.escapes ?? [])")
        }
    }

    /// `StressQueue.main.asyncAfter`, where the main thread serves the main
    /// queue: on the virtual clock, a step of the main thread's, drained
    /// before the final check; control full under every kind of policy; the
    /// schedule names the main thread (`w3`), and a seed replays it.
    func testMainAsyncAfterIsAControlledStepOfTheMainThread() throws {
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        func mainAfter(seed: UInt64, fuzz: FuzzProfile) -> (encoded: String?, violations: Int?, control: ScheduleRecord.Coverage?,
                                                           problem: String) {
            MainThreadService.run {
                let outcome = Self.run("main-after", seed: seed, fuzz: fuzz)
                return (outcome.output?.schedule.encoded, outcome.output?.violations.count, outcome.output?.schedule.controlled,
                        Self.problem(outcome))
            }
        }
        for fuzz in policies {
            for seed in UInt64(1)...5 {
                let run = mainAfter(seed: seed, fuzz: fuzz)
                XCTAssertEqual(run.violations, 0, "\(fuzz) seed \(seed): \(run.problem)")
                XCTAssertEqual(run.control, .full, "\(fuzz) seed \(seed)")
                XCTAssertTrue(try ScheduleEncoding.decode(run.encoded ?? "", workers: 3).contains(3),
                              "the main thread ran: \(fuzz) seed \(seed): \(run.encoded ?? "")")
            }
        }
        let first = mainAfter(seed: 2, fuzz: .pct)
        XCTAssertNotNil(first.encoded)
        XCTAssertEqual(mainAfter(seed: 2, fuzz: .pct).encoded, first.encoded, "the same seed, the same schedule")
    }

    /// A queue's block that blocks where the model cannot see (a plain
    /// `DispatchSemaphore`) is noticed as a worker's escape is: the others go
    /// on (the submitter signals it), nothing hangs, every block is drained,
    /// and the record names the queue. A `DispatchGroup.wait()` blocks the
    /// worker outside the model the same way.
    func testAQueueBlockBlockingOutsideTheModelIsNoticed() throws {
        for fuzz in [FuzzProfile.off, .yield, .pct] {
            for seed in UInt64(1)...3 {
                // One worker: it spins (a fuzz point each pass) until the block
                // has started, and the spin is switched away from to the queue
                // worker, the only other participant (two spinning workers could
                // be switched between for ever under `pct`).
                let outcome = Self.run("block-escapes", threads: 1, seed: seed, fuzz: fuzz, ops: 4)
                let output = try XCTUnwrap(outcome.output, "\(fuzz): \(Self.problem(outcome))")
                XCTAssertNil(outcome.stall, "\(fuzz): \(Self.problem(outcome))")
                XCTAssertEqual(output.violations.count, 0, "\(fuzz): \(Self.problem(outcome))")
                XCTAssertEqual(output.measurement.totalOps, 4, "\(fuzz) seed \(seed)")
                XCTAssertEqual(output.schedule.controlled, .partial, "\(fuzz)")
                XCTAssertTrue(output.schedule.escapes?.contains {
                    $0.hasPrefix("the queue worker of the queue 'probe.async-serial' blocked in the kernel in a block it runs")
                } == true, "\(fuzz): \(output.schedule.escapes ?? [])")
            }
        }
        let waited = Self.run("group-wait", threads: 2, seed: 1, fuzz: .pct, ops: 4)
        let output = try XCTUnwrap(waited.output, Self.problem(waited))
        XCTAssertNil(waited.stall, Self.problem(waited))
        XCTAssertEqual(output.violations.count, 0, Self.problem(waited))
        XCTAssertEqual(output.schedule.controlled, .partial)
        XCTAssertTrue(output.schedule.escapes?.contains { $0.contains("blocked in the kernel") } == true, "\(output.schedule.escapes ?? [])")
    }
}
