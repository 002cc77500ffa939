import CStressSupport
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitFixtures
import StressKitTestSupport
import Synchronization
import XCTest

/// Stalled trials, each in a process of its own: reported at the limit when
/// the workers cannot go on by themselves, whatever they wait in; never as a
/// bare `timeout`; `partial` only when some workers went on. No assertion
/// on how fast: the bounds are the trial's window and timeout, and whether
/// the report came at the limit or after the watchdog's grace is in its words.
final class StallTimingTrialTests: XCTestCase {
    private static let afterGrace = "Reported after the watchdog's grace"

    private func stalled(_ body: String, duration: String = "30s") throws -> TrialResult {
        let report = try TestSupport.runIsolated("""
            experiments:
              - \(body)
                strategies: [pthread-mutex]
                duration: \(duration)
                warmup: 0
                deadlock_after: 200ms
            """)
        return try XCTUnwrap(report.trials.first)
    }

    /// Every role blocked on a lock, a condition or the round's barrier:
    /// before, the watchdog took these waits for threads the OS had not run
    /// and waited max(10 × the limit, 2 s), and the cycle check then
    /// reported a whole-trial stall as partial.
    func testRolesWaitingOnLocksConditionsOrTheBarrierAreAWholeTrialDeadlockAtTheLimit() throws {
        let cases: [(scenario: String, cycleWords: [String])] = [
            ("scenario: nested-transaction-once\n    parameters: { variant: reenter }",
             ["worker 0 holds resource 0 and waits for resource 0, held by itself"]),
            ("scenario: _stuck-in-round\n    parameters: { mode: leaked-lock, after_rounds: 3 }",
             ["holds the lock 'ledger' and waits at the round's barrier for worker 1", "worker 1 waits for the lock 'ledger', held by worker 0"]),
            ("scenario: _stuck-in-round\n    parameters: { mode: condition, after_rounds: 3 }",
             ["waits for a signal on the condition 'ready', which only worker 1, itself stuck, could send"]),
        ]
        for (scenario, cycleWords) in cases {
            let trial = try stalled(scenario)
            XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
            let stall = try XCTUnwrap(trial.stall, scenario)
            XCTAssertNil(stall.partial, "every worker is stuck: \(stall.summary)")
            XCTAssertTrue(stall.summary.hasPrefix("deadlock: no worker completed an operation for "), stall.summary)
            XCTAssertTrue(stall.summary.contains("every unfinished worker is waiting"), stall.summary)
            XCTAssertFalse(stall.summary.contains(Self.afterGrace), "judged at the limit: \(stall.summary)")
            let cycle = (stall.cycle ?? []).joined(separator: "; ")
            for words in cycleWords { XCTAssertTrue(cycle.contains(words), "\(scenario): \(cycle)") }
            XCTAssertLessThan(stall.stalledForNanoseconds, 25_000_000_000, "reported by the watchdog, well before the window's end")
        }
    }

    /// A worker that holds the strategy's lock and takes a plain pthread
    /// mutex twice (a team's `NSLock`, not interposed): blocked in the
    /// kernel, while the others wait for the strategy's lock; or outside any
    /// lock, while the others finish their window. Nothing
    /// else in the process can run: a deadlock at the limit, with the
    /// kernel's words for where the worker is.
    func testALockTheHarnessDoesNotSeeIsADeadlockNamingTheKernelWait() throws {
        // Outside any lock the others go on to the end of their window
        // (a worker blocked in the kernel while others go on is not judged
        // alone): a short one.
        for (body, duration) in [("workload: _fault\n    parameters: { mode: self-deadlock, after_ops: 200 }\n    threads: 3", "30s"),
                                 ("workload: _fault\n    parameters: { mode: self-deadlock, where: outside, after_ops: 200 }\n    threads: 3", "300ms"),
                                 ("scenario: _stuck-in-round\n    parameters: { mode: unseen-lock, after_rounds: 3 }", "30s")] {
            let trial = try stalled(body, duration: duration)
            XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
            let stall = try XCTUnwrap(trial.stall)
            XCTAssertNil(stall.partial, stall.summary)
            XCTAssertFalse(stall.summary.contains(Self.afterGrace), "judged at the limit: \(stall.summary)")
            let stuck = try XCTUnwrap(stall.workers.first)
            #if os(Linux)
            XCTAssertEqual(stuck.kernelWait?.state, "S", "\(stuck)")
            XCTAssertEqual(stuck.kernelWait?.systemCall, "futex", "\(stuck)")
            XCTAssertTrue(stuck.description.contains("blocked in the kernel on a futex"), stuck.description)
            XCTAssertTrue(stall.summary.contains("Where the harness cannot see: worker 0 blocked in the kernel on a futex"), stall.summary)
            #endif
            XCTAssertTrue(stall.workers.dropFirst().allSatisfy { $0.kernelWait == nil }, "\(stall.workers)")
        }
    }

    /// A worker asleep in the kernel without end chose to sleep: a hang.
    func testAWorkerAsleepInTheKernelWithoutEndIsAHang() throws {
        let trial = try stalled("scenario: _stuck-in-round\n    parameters: { mode: unseen-sleep, after_rounds: 3 }")
        XCTAssertEqual(trial.outcome, .hang, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertFalse(stall.summary.contains(Self.afterGrace), "judged at the limit: \(stall.summary)")
        #if os(Linux)
        let sleeper = try XCTUnwrap(stall.workers.first)
        XCTAssertTrue(["nanosleep", "clock_nanosleep"].contains(sleeper.kernelWait?.systemCall ?? ""), "\(sleeper)")
        XCTAssertTrue(sleeper.description.contains("asleep in the kernel in "), sleeper.description)
        #endif
    }

    /// The case that ended as "did not finish within its 12.1s timeout;
    /// killed" with no worker positions: a self-deadlock on a lock the
    /// harness does not see, with the plan's defaults (deadlock_after 2 s,
    /// the automatic timeout).
    func testWithThePlanDefaultsAnUnseenSelfDeadlockIsADeadlockNotATimeout() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: _fault
                parameters: { mode: self-deadlock, after_ops: 200 }
                strategies: [pthread-mutex]
                threads: 2
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
        XCTAssertEqual(trial.stall?.workers.count, 2)
        XCTAssertEqual(trial.stall?.workers.first?.operation, "work")
    }

    /// A thread outside the trial spins all along, so the watchdog cannot
    /// tell the blocked worker from one the OS has not run: it waits its
    /// grace (10 × 2 s), but reports before the 5 s timeout all the same.
    func testAStallTheWatchdogCannotJudgeAtOnceIsReportedBeforeTheTimeout() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - scenario: _stuck-in-round
                parameters: { mode: unseen-lock, busy_thread: true, after_rounds: 3 }
                strategies: [pthread-mutex]
                duration: 30s
                warmup: 0
                deadlock_after: 2s
                timeout: 5s
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .deadlock, "not a bare timeout: " + WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertTrue(stall.summary.contains(Self.afterGrace + " (10 × deadlock_after, at least 2s, or just before the timeout): worker 0 had not run"),
                      stall.summary)
        XCTAssertGreaterThanOrEqual(stall.stalledForNanoseconds, 2_000_000_000, "not before the limit")
    }

    /// Every task awaiting one of two tasks that await each other: all of
    /// them stuck, so not partial, and the summary still says why they wait.
    func testTasksThatAllAwaitForEverAreNotAPartialStall() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: _fault
                parameters: { mode: await-cycle, after_ops: 20 }
                strategies: [unsynchronized]
                threads: 3
                duration: 30s
                warmup: 0
                deadlock_after: 200ms
                executor: harness
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertNil(stall.partial, stall.summary)
        XCTAssertTrue(stall.summary.contains("stayed suspended in an await with nothing of theirs queued, running or sleeping"), stall.summary)
    }

    /// Every worker takes two locks in an order that depends on its parity:
    /// the whole trial deadlocks, which is not partial.
    func testALockOrderDeadlockOfEveryWorkerIsNotPartial() throws {
        let trial = try stalled("workload: _fault\n    parameters: { mode: lock-order }\n    threads: 2")
        XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertNil(stall.partial, stall.summary)
        XCTAssertTrue(stall.summary.contains("every unfinished worker is waiting"), stall.summary)
        XCTAssertEqual(stall.cycle?.count, 2, stall.summary)
    }
}

/// The checks that keep `deadlock_after` meaningful: shorter than the
/// timeout by the time the watchdog keeps to report, longer than the
/// fuzzer's longest pause, in plans (file, key and line) and on the command
/// line (the flag).
final class StallLimitCheckTests: XCTestCase {
    func testAPlanLimitNoLongerThanTheFuzzersLongestPauseIsRefused() {
        let problems = TestSupport.problems("""
            defaults: { fuzz: chaos }
            experiments:
              - workload: counter
                deadlock_after: 1ns
              - name: tuned
                workload: counter
                fuzz: { profile: chaos, sleep_max: 30ms }
                deadlock_after: 20ms
              - name: fine
                workload: counter
                deadlock_after: 6ms
            """)
        XCTAssertEqual(problems.map(\.description), [
            "test.yaml:4:21: experiments[0].deadlock_after: deadlock_after (1ns) must be longer than the fuzzer's longest pause "
                + "(5ms, starve_max of fuzz profile chaos): a worker the fuzzer holds would look stalled, and correct code would be "
                + "reported as a hang; lengthen deadlock_after or shorten the pause",
            "test.yaml:8:21: experiments[1].deadlock_after: deadlock_after (20ms) must be longer than the fuzzer's longest pause "
                + "(30ms, sleep_max of fuzz profile chaos): a worker the fuzzer holds would look stalled, and correct code would be "
                + "reported as a hang; lengthen deadlock_after or shorten the pause",
        ])
    }

    func testTheCommandLineRefusesALimitTheFuzzerOrTheTimeoutWouldDefeat() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("tiny.yaml").path
        try "experiments:\n  - workload: counter\n    ops: 10\n    deadlock_after: 1ns\n".write(toFile: plan, atomically: true, encoding: .utf8)
        let chaos = try TestSupport.cli(["run", plan, "--fuzz", "chaos"])
        XCTAssertEqual(chaos.status, 2, chaos.stderr)
        XCTAssertTrue(chaos.stderr.contains(
            "the watchdog's limit (deadlock_after 1ns) must be longer than the fuzzer's longest pause (5ms, starve_max of --fuzz chaos)"), chaos.stderr)
        let flag = try TestSupport.cli(["run", plan, "--fuzz", "portfolio", "--deadlock-after", "5ms"])
        XCTAssertEqual(flag.status, 2, flag.stderr)
        XCTAssertTrue(flag.stderr.contains("the watchdog's limit (--deadlock-after 5ms) must be longer"), flag.stderr)
        let margin = try TestSupport.cli(["run", plan, "--deadlock-after", "1s", "--trial-timeout", "1200ms"])
        XCTAssertEqual(margin.status, 2, margin.stderr)
        XCTAssertTrue(margin.stderr.contains(
            "the watchdog's limit (--deadlock-after 1s) must be shorter than the trial timeout (--trial-timeout 1200ms) by at least 300ms"),
            margin.stderr)
    }
}
