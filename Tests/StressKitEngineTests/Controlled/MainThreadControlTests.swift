@testable import StressCore
import StressKitTestSupport
import XCTest

/// The main thread as a controlled worker, in this process: where the main
/// thread serves the main queue (``MainThreadService/run(_:)`` called on it),
/// the main-queue blocks the workers submit through ``StressQueue/main`` are
/// steps of the main thread's, which the policy picks as any worker's (index:
/// one past the workers).
final class MainThreadControlTests: XCTestCase {
    private typealias Support = ControlledTrialSupport

    /// What a trial run on another thread hands back to the main thread.
    private struct Summary: Sendable {
        var encoded: String?
        var control: ScheduleRecord.Coverage?
        var violations: Int?
        var stall: String?
        var error: String?
    }

    /// Runs the probe's main-thread hand-offs under control while the main
    /// thread serves the main queue.
    private func runHandOffs(seed: UInt64, fuzz: FuzzProfile) -> Summary {
        MainThreadService.run {
            let outcome = Support.run("test-controlled-probe", ["shape": .text("main-handoff")], strategy: "unsynchronized",
                                      settings: Support.settings(threads: 2, seed: seed, fuzz: fuzz, ops: 12))
            return Summary(encoded: outcome.output?.schedule.encoded, control: outcome.output?.schedule.controlled,
                           violations: outcome.output?.violations.count, stall: outcome.stall?.summary,
                           error: outcome.error.map { "\($0)" })
        }
    }

    /// Correct hand-offs to the main thread (a `sync` with nothing held, an
    /// `async` whose block takes a lock the workers take) pass over many
    /// seeds and every kind of policy; the main thread (`w2`) is picked in
    /// the schedule; control is full; and a seed replays its schedule.
    func testCorrectMainThreadHandOffsPassUnderControlWithTheMainThreadScheduled() throws {
        // XCTest runs a test on the main thread; elsewhere nothing would be
        // known to serve the main queue, and the main thread takes no part.
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        for policy in [FuzzProfile.off, .yield, .pct] {
            for seed in UInt64(1)...10 {
                let run = runHandOffs(seed: seed, fuzz: policy)
                XCTAssertNil(run.error, "\(policy) seed \(seed)")
                XCTAssertNil(run.stall, "\(policy) seed \(seed)")
                XCTAssertEqual(run.violations, 0, "\(policy) seed \(seed)")
                XCTAssertEqual(run.control, .full, "\(policy) seed \(seed)")
                XCTAssertTrue(run.encoded?.contains("w2:") == true, "\(policy) seed \(seed): \(run.encoded ?? "no schedule")")
            }
        }
        let first = runHandOffs(seed: 7, fuzz: .yield)
        let again = runHandOffs(seed: 7, fuzz: .yield)
        XCTAssertNotNil(first.encoded)
        XCTAssertEqual(first.encoded, again.encoded, "the same seed, the same schedule")
    }

    /// The main thread blocked in the kernel inside a block it runs under
    /// control (a lock the harness cannot see, held by a worker paused at a
    /// point) is noticed as any worker is: the others go on, and control is
    /// `partial`, naming the main thread. One worker, so that only the main
    /// thread can block on that lock (with two, the second worker could
    /// block on it first and be the one named, as timing had it), under
    /// `yield`, whose seeds pick the main thread while the worker holds it
    /// (under `off` it runs its blocks between the worker's operations).
    func testTheMainThreadBlockedOutsideTheModelMakesControlPartial() throws {
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        for seed in UInt64(1)...3 {
            let run = MainThreadService.run {
                let outcome = Support.run("test-controlled-probe", ["shape": .text("main-plain-lock")], strategy: "unsynchronized",
                                          settings: Support.settings(threads: 1, seed: seed, fuzz: .yield, ops: 20))
                return (outcome.output?.schedule.controlled, outcome.output?.schedule.escapes ?? [], outcome.stall?.summary,
                        outcome.output?.measurement.totalOps)
            }
            XCTAssertNil(run.2, "seed \(seed)")
            XCTAssertEqual(run.3, 20, "seed \(seed)")
            XCTAssertEqual(run.0, .partial, "seed \(seed)")
            XCTAssertTrue(run.1.contains { $0.hasPrefix("the main thread blocked in the kernel in a main-queue block") }, "seed \(seed): \(run.1)")
        }
    }

    /// A scenario's role placed on the main thread (``Role/onMainThread``)
    /// runs there, free and controlled; under control the main thread (`w2`)
    /// is picked in the schedule, control is full, and every round is
    /// counted.
    func testARoleOnTheMainThreadRunsThereFreeAndControlled() throws {
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        for policy in [FuzzProfile.off, .yield, .pct] {
            for seed in UInt64(1)...5 {
                let run = MainThreadService.run {
                    let outcome = Support.run("test-main-thread-role", strategy: "unsynchronized",
                                              settings: Support.settings(threads: 2, seed: seed, fuzz: policy, maxDecisions: 3_000),
                                              scenario: true)
                    return Summary(encoded: outcome.output?.schedule.encoded, control: outcome.output?.schedule.controlled,
                                   violations: outcome.output?.violations.count, stall: outcome.stall?.summary,
                                   error: outcome.error.map { "\($0)" })
                }
                XCTAssertNil(run.error, "\(policy) seed \(seed)")
                XCTAssertNil(run.stall, "\(policy) seed \(seed)")
                XCTAssertEqual(run.violations, 0, "\(policy) seed \(seed)")
                XCTAssertEqual(run.control, .full, "\(policy) seed \(seed)")
                XCTAssertTrue(run.encoded?.contains("w2:") == true, "\(policy) seed \(seed): \(run.encoded ?? "no schedule")")
            }
        }
        let free = MainThreadService.run {
            var settings = Support.settings(threads: 2, seed: 1, fuzz: .yield, ops: 200)
            settings.schedule = .free
            let outcome = Support.run("test-main-thread-role", strategy: "unsynchronized", settings: settings, scenario: true)
            return Summary(encoded: nil, control: nil, violations: outcome.output?.violations.count, stall: outcome.stall?.summary,
                           error: outcome.error.map { "\($0)" })
        }
        XCTAssertNil(free.error)
        XCTAssertNil(free.stall)
        XCTAssertEqual(free.violations, 0, "the ui role ran on the main thread in every round")
    }

    /// Where the main thread does not serve the main queue by
    /// ``MainThreadService`` (here: the trial runs on a thread of the
    /// test's own while XCTest's main thread waits in its run loop), the
    /// main thread takes no part: the same hand-offs run, their main-queue
    /// blocks run free (as on any thread the harness does not schedule), and
    /// the schedule never names the main thread.
    func testTheMainThreadTakesNoPartWhereTheHarnessDoesNotServeTheMainQueue() throws {
        let done = expectation(description: "trial")
        let result = SummaryBox()
        let thread = Thread {
            let outcome = Support.run("test-controlled-probe", ["shape": .text("main-handoff")], strategy: "unsynchronized",
                                      settings: Support.settings(threads: 2, seed: 1, fuzz: .yield, ops: 5))
            result.set(Summary(encoded: outcome.output?.schedule.encoded, control: outcome.output?.schedule.controlled,
                               violations: outcome.output?.violations.count, stall: outcome.stall?.summary,
                               error: outcome.error.map { "\($0)" }))
            done.fulfill()
        }
        XCTAssertFalse(MainThreadService.isServing)
        thread.start()
        // XCTest's wait runs the main run loop, which drains the main queue.
        wait(for: [done], timeout: 120)
        let run = try XCTUnwrap(result.get())
        XCTAssertNil(run.stall)
        XCTAssertEqual(run.violations, 0)
        let schedule = try XCTUnwrap(run.encoded, run.error ?? "no schedule")
        XCTAssertFalse(schedule.contains("w2:"), schedule)
    }

    /// A summary handed from the trial's thread to the test's.
    private final class SummaryBox: @unchecked Sendable {
        // @unchecked: guarded by the lock.
        private let lock = NSLock()
        private var value: Summary?
        func set(_ v: Summary) { lock.withLock { value = v } }
        func get() -> Summary? { lock.withLock { value } }
    }
}
