import Foundation
import StressKitTestSupport
import StressKitTesting
import XCTest

/// A state a role on the main thread shares with a worker's role: a count
/// under a harness-aware lock, and whether the main thread's role ever ran
/// off the main thread.
final class MainThreadTally: @unchecked Sendable {
    // @unchecked: `lock` guards `count`; `offMain` is written by the main
    // thread's role only, and read by the check after the round.
    let lock = StressLock(name: "tally")
    var count = 0
    var offMain = false

    /// The main thread's part: counts under the lock, on the main thread.
    func countOnMain() {
        if !Thread.isMainThread { offMain = true }
        lock.withLock { count += 1 }
    }
}

private struct TallyWrong: Error, CustomStringConvertible {
    let count: Int
    let offMain: Bool
    var description: String { offMain ? "the main thread's role ran off the main thread" : "count \(count), expected 3" }
}

/// `StressTest.race(..., mainThread:)` and `StressTest.model(..., mainThread:)`:
/// a role of the closure form on the main thread. XCTest runs these on the
/// main thread, where an in-process run serves the main queue, so the main
/// thread takes part in the schedule (index: one past the workers).
final class RaceMainThreadTests: XCTestCase {
    /// The correct race: the worker counts under the lock, then hands a
    /// count to the main thread with `main.sync` holding nothing; the main
    /// thread's role counts under the same lock.
    private func correctRace(seed: UInt64, fuzz: FuzzProfile, schedule: ScheduleMode = .controlled) -> StressTest {
        StressTest.race(
            setup: { MainThreadTally() },
            { t in
                t.lock.withLock { t.count += 1 }
                StressQueue.main.sync { t.lock.withLock { t.count += 1 } }
            },
            mainThread: { t in t.countOnMain() },
            check: { t in if t.count != 3 || t.offMain { throw TallyWrong(count: t.count, offMain: t.offMain) } })
            .schedule(schedule).fuzz(fuzz).seed(seed).maxDecisions(2_000).ops(200)
    }

    /// Correct: no failure over many seeds and policies, control full, the
    /// main thread (`w2`: two roles, then the main thread's slot) picked in
    /// the schedule; free too; and a seed replays its schedule.
    func testAMainThreadRolePassesFreeAndControlledAndReplays() throws {
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        for fuzz in [FuzzProfile.off, .yield, .pct, .chaos] {
            for seed in UInt64(1)...8 {
                let report = try correctRace(seed: seed, fuzz: fuzz).run()
                let trial = try XCTUnwrap(report.trials.first)
                XCTAssertEqual(trial.outcome, .passed, "\(fuzz) seed \(seed): \(report.summary)")
                XCTAssertEqual(trial.schedule?.controlled, .full, "\(fuzz) seed \(seed): \(trial.schedule?.escapes ?? [])")
                XCTAssertTrue(trial.schedule?.encoded?.contains("w2:") == true, "\(fuzz) seed \(seed): \(trial.schedule?.encoded ?? "")")
                XCTAssertGreaterThan(trial.rounds ?? 0, 10, "\(fuzz) seed \(seed)")
            }
        }
        let free = try correctRace(seed: 1, fuzz: .yield, schedule: .free).run()
        XCTAssertEqual(free.trials.first?.outcome, .passed, free.summary)
        let first = try correctRace(seed: 5, fuzz: .pct).run()
        let again = try correctRace(seed: 5, fuzz: .pct).run()
        XCTAssertNotNil(first.trials.first?.schedule?.encoded)
        XCTAssertEqual(first.trials.first?.schedule?.encoded, again.trials.first?.schedule?.encoded, "the same seed, the same schedule")
    }

    /// The bug: the worker `sync`s to main while it holds the lock the main
    /// thread's role waits for. Under control that is a deadlock found the
    /// moment its cycle closes, naming the main thread, in every repetition.
    /// Isolated: a main thread stuck in a deadlock stays stuck, which the
    /// test's own main thread must not be.
    func testAMainSyncHoldingTheLockTheMainRoleWaitsForIsADeadlockFoundAtOnce() throws {
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        let report = try StressTest.race(
            setup: { MainThreadTally() },
            { t in t.lock.withLock { StressQueue.main.sync { t.count += 1 } } },
            mainThread: { t in t.countOnMain() })
            .schedule(.controlled).fuzz(.yield).seed(1).repetitions(4).maxDecisions(20_000)
            .deadlockAfter(.seconds(30)).timeout(.seconds(120))
            .isolated(in: self).run()
        XCTAssertEqual(report.trials.count, 4)
        for trial in report.trials {
            let text = trial.problemLine
            XCTAssertEqual(trial.outcome, .deadlock, text)
            XCTAssertTrue(text.contains("found at once by controlled scheduling"), text)
            XCTAssertTrue(text.contains("the main thread holds the main queue and waits for the lock 'tally'"), text)
        }
    }

    /// A model with a role on the main thread: the body's threads and the
    /// main thread count under one lock; the main thread takes part (`w4`:
    /// the body, two spawn slots and the main thread's role, then its slot).
    func testAModelWithAMainThreadRolePassesUnderControl() throws {
        try XCTSkipUnless(Thread.isMainThread, "the main thread takes part only where it serves the main queue")
        for seed in UInt64(1)...6 {
            let report = try StressTest.model(setup: { MainThreadTally() }, mainThread: { t in t.countOnMain() }) { t, threads in
                let a = threads.spawn { t.lock.withLock { t.count += 1 } }
                StressQueue.main.sync { t.lock.withLock { t.count += 1 } }
                a.join()
                try StressTest.check(!t.offMain, "the main thread's role ran off the main thread")
            }
            .schedule(.controlled).fuzz(.pct).seed(seed).maxDecisions(2_000).run()
            let trial = try XCTUnwrap(report.trials.first)
            XCTAssertEqual(trial.outcome, .passed, "seed \(seed): \(report.summary)")
            XCTAssertEqual(trial.schedule?.controlled, .full, "seed \(seed): \(trial.schedule?.escapes ?? [])")
            XCTAssertTrue(trial.schedule?.encoded?.contains("w4:") == true, "seed \(seed): \(trial.schedule?.encoded ?? "")")
        }
    }
}
