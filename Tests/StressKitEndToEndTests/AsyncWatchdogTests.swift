import CStressSupport
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The task-aware watchdog (docs/async.md): a job that never returns to the
/// executor is a hang; tasks that can never finish are a deadlock. Each
/// trial runs in a process of its own, stalled on purpose.
final class AsyncWatchdogTests: XCTestCase {
    /// One `_fault` trial of three workers in its own process, stalled on
    /// purpose: the watchdog must end it long before its 30 s window.
    private func stalledTrial(_ parameters: String, executor: String) throws -> TrialResult {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: _fault
                parameters: {\(parameters)}
                strategies: [unsynchronized]
                threads: [3]
                duration: 30s
                warmup: 0
                deadlock_after: 300ms
                executor: \(executor)
            """)
        return try XCTUnwrap(report.trials.first)
    }

    /// A job that never returns to the executor (a loop between two awaits)
    /// is a hang, named as such, on the parallel and the deterministic executor.
    func testAJobThatNeverReturnsToTheExecutorIsAHang() throws {
        for executor in ["harness", "deterministic"] {
            let trial = try stalledTrial("mode: hang, where: await, after_ops: 50", executor: executor)
            XCTAssertEqual(trial.outcome, .hang, "\(executor): " + WorkloadTestSupport.describe(trial))
            let stall = try XCTUnwrap(trial.stall)
            XCTAssertTrue(stall.summary.contains("worker 0"), stall.summary)
            XCTAssertLessThan(stall.stalledForNanoseconds, 30_000_000_000, "reported by the watchdog, not at the end of the window")
            if executor == "harness" {
                XCTAssertTrue(stall.summary.contains("without returning to the executor"), stall.summary)
            }
        }
    }

    /// Tasks that can never finish, with no continuation in sight: each
    /// worker awaiting a task that awaits its own value, and every worker
    /// awaiting one of two tasks that await each other. Every worker is
    /// suspended with nothing of its own queued, running or sleeping: a
    /// deadlock, on both harness executors, naming each worker's await.
    func testTasksAwaitingThemselvesOrEachOtherAreADeadlock() throws {
        for mode in ["await-self", "await-cycle"] {
            for executor in ["harness", "deterministic"] {
                let trial = try stalledTrial("mode: \(mode), after_ops: 20", executor: executor)
                XCTAssertEqual(trial.outcome, .deadlock, "\(mode), \(executor): " + WorkloadTestSupport.describe(trial))
                let stall = try XCTUnwrap(trial.stall, "\(mode), \(executor)")
                XCTAssertTrue(stall.summary.contains("suspended in an await"), "\(mode), \(executor): \(stall.summary)")
                XCTAssertEqual(stall.workers.count, 3, "\(mode), \(executor): \(stall.workers)")
                XCTAssertTrue(stall.workers.allSatisfy { $0.description.hasPrefix("work/await: suspended in an await") },
                              "\(mode), \(executor): \(stall.workers)")
                XCTAssertLessThan(stall.stalledForNanoseconds, 30_000_000_000, "reported by the watchdog, not at the end of the window")
                // Nothing outside the executor could resume them: at the limit, not after the grace.
                XCTAssertFalse(stall.summary.contains("after the watchdog's grace"), "\(mode), \(executor): \(stall.summary)")
            }
        }
    }

    /// A worker awaiting a callback from a thread outside the deterministic
    /// executor (a `DispatchQueue`'s) is suspended with nothing of its own on
    /// the executor, which sits idle; but it is not stuck while that thread
    /// can still run. One that keeps the CPU for 1.5 s (five stall limits:
    /// to the executor, a callback thread the OS runs late on a loaded
    /// machine looks the same) is no stall.
    func testACallbackThreadThatCanStillRunIsNoStallOnTheDeterministicExecutor() throws {
        let report = try TestSupport.runIsolated("""
            experiments:
              - workload: _fault
                parameters: {mode: slow-callback, after_ops: 30}
                strategies: [unsynchronized]
                threads: [3]
                ops: 200
                warmup: 0
                deadlock_after: 300ms
                executor: deterministic
            """)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
    }

    /// On the deterministic executor a job holds the only thread: nothing
    /// else can run, so wall time says nothing about the job's progress. A
    /// correct job kept off the CPU for 1.5 s (five stall limits; what a
    /// thread the OS does not run on a loaded machine looks like) is not a
    /// stall, and nobody else is "suspended with nothing queued" meanwhile.
    func testAJobTheOSDoesNotRunIsNoStallOnTheDeterministicExecutor() throws {
        let experiment = { (fuzz: String) in """
              - workload: _fault
                name: nap-\(fuzz)
                parameters: {mode: nap, where: await, after_ops: 30}
                strategies: [unsynchronized]
                threads: [3]
                ops: 200
                warmup: 0
                deadlock_after: 300ms
                executor: deterministic
                fuzz: \(fuzz)
            """ }
        let report = try TestSupport.runIsolated("experiments:\n" + experiment("chaos") + "\n" + experiment("pct"))
        XCTAssertEqual(report.trials.count, 2)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        }
    }

    /// A job blocked in the kernel for good on the deterministic executor
    /// (it uses no CPU) is still a hang: of the whole trial, saying that the
    /// job holds the only thread, once it has used under 1% of the CPU for
    /// ten stall limits (at least 2 s).
    func testAJobBlockedInTheKernelIsAHangOnTheDeterministicExecutor() throws {
        let trial = try stalledTrial("mode: block, where: await, after_ops: 30", executor: "deterministic")
        XCTAssertEqual(trial.outcome, .hang, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertTrue(stall.summary.contains("worker 0"), stall.summary)
        XCTAssertTrue(stall.summary.contains("blocked in the kernel"), stall.summary)
        XCTAssertTrue(stall.summary.contains("no other job can run meanwhile"), stall.summary)
        XCTAssertFalse(stall.summary.contains("other worker(s) went on"), stall.summary)
        XCTAssertNil(stall.partial, "nothing else can run on the deterministic executor: the whole trial stalled")
    }

    /// A job that spins between two awaits on the deterministic executor is a
    /// hang of the whole trial, never "while N other worker(s) went on".
    func testASpinningJobOnTheDeterministicExecutorIsAWholeTrialHang() throws {
        let trial = try stalledTrial("mode: hang, where: await, after_ops: 50", executor: "deterministic")
        XCTAssertEqual(trial.outcome, .hang, WorkloadTestSupport.describe(trial))
        let stall = try XCTUnwrap(trial.stall)
        XCTAssertFalse(stall.summary.contains("other worker(s) went on"), stall.summary)
        XCTAssertNil(stall.partial, stall.summary)
    }

    /// The executor clock: the CPU time of the executor's thread plus the
    /// time the executor had nothing to do, anchored to the wall clock.
    func testTheExecutorClockIsTheThreadsCPUTimePlusItsIdleTime() {
        var clock = ExecutorClock()
        // No deterministic executor: the wall clock.
        XCTAssertEqual(clock.reading(wall: 1_000, nil), 1_000)
        XCTAssertFalse(clock.isDeterministic)
        // A CPU time that cannot be read: the wall clock until one can, and
        // never backwards.
        var unreadable = ExecutorClock()
        let none = DeterministicExecutorState(runningJob: 7, idleNs: 0, cpuNs: .max)
        XCTAssertEqual(unreadable.reading(wall: 2_000, none), 2_000)
        XCTAssertEqual(unreadable.reading(wall: 9_000, none), 9_000)
        XCTAssertTrue(unreadable.isDeterministic)

        // This thread's own clock, asleep while "its job" holds it: the
        // clock stands nearly still (a thread the OS does not run).
        var own = ExecutorClock()
        let cpuClock = stress_thread_cpu_clock()
        let running = { DeterministicExecutorState(runningJob: 1, idleNs: 0, cpuNs: stress_cpu_clock_ns(cpuClock)) }
        let start = MonotonicClock.now()
        let first = own.reading(wall: start, running())
        XCTAssertEqual(first, start, "anchored to the wall clock")
        usleep(200_000)
        let wall = MonotonicClock.now()
        let second = own.reading(wall: wall, running())
        XCTAssertLessThan(second - first, (wall - start) / 2, "a sleeping thread used almost no CPU")
        XCTAssertEqual(own.held?.number, 1)
        XCTAssertEqual(own.held?.heldForNs(now: second), second - first)
        // The executor idle for 150 ms of those: its time counts.
        let idle = DeterministicExecutorState(runningJob: nil, idleNs: 150_000_000, cpuNs: stress_cpu_clock_ns(cpuClock))
        let third = own.reading(wall: wall + 150_000_000, idle)
        XCTAssertGreaterThanOrEqual(third - second, 150_000_000, "idle time is the executor's own")
        XCTAssertLessThanOrEqual(third, wall + 150_000_000, "never ahead of the wall clock")
        XCTAssertNil(own.held)

        // The first look after arming dates progress to the arming on the
        // wall clock, to itself on the executor's.
        XCTAssertEqual(ExecutorClock().firstLookOrigin(armedAt: 5, now: 9), 5)
        XCTAssertEqual(own.firstLookOrigin(armedAt: 5, now: 9), 9)

        XCTAssertEqual(ExecutorClock.kernelWaitLimit(stallAfterNs: 100_000_000), 2_000_000_000)
        XCTAssertEqual(ExecutorClock.kernelWaitLimit(stallAfterNs: 500_000_000), 5_000_000_000)
    }

    /// The executor clock starts at the moment its first state was read, not
    /// at the look's later wall time: a watchdog the OS runs late between the
    /// two does not count the delay as the executor's time.
    func testTheExecutorClockStartsWhenItsFirstStateWasRead() {
        var clock = ExecutorClock()
        let read = { (cpu: UInt64, at: UInt64) in
            DeterministicExecutorState(runningJob: nil, idleNs: 0, cpuNs: cpu, threadId: 42, wallNs: at)
        }
        // Read at 1 s; the look's wall time 1.3 s.
        XCTAssertEqual(clock.reading(wall: 1_300_000_000, read(10_000_000, 1_000_000_000)), 1_000_000_000)
        XCTAssertEqual(clock.threadId, 42)
        // 5 ms more of the CPU: 5 ms later, not 305 ms.
        XCTAssertEqual(clock.reading(wall: 1_310_000_000, read(15_000_000, 1_305_000_000)), 1_005_000_000)
    }
}
