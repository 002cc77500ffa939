import CStressSupport
@testable import StressCore
import StressKitTestSupport
import Synchronization
import XCTest

/// The threads shrinking and exploration reuse between runs (``ThreadPool``),
/// and the `empty` scenario's steps that the controlled scheduler's speed is
/// measured with (scripts/controlled-speed.sh).
final class ControlledThreadReuseTests: XCTestCase {
    private typealias Support = ControlledTrialSupport

    /// The kernel's id of the calling thread (never reused while the
    /// kernel has fresh ids to give, so a new thread has a new one).
    private static func threadID() -> UInt64 { stress_thread_id() }

    func testAPoolRunsEachBodyAndReusesItsThreadForTheNext() throws {
        let pool = ThreadPool()
        let seen = Mutex<[UInt64]>([])
        for _ in 0..<5 {
            let thread = try XCTUnwrap(pool.spawn { seen.withLock { $0.append(Self.threadID()) } })
            thread.join()
        }
        let ids = seen.withLock { $0 }
        XCTAssertEqual(ids.count, 5)
        // Each body was joined before the next started: one parked thread serves them all.
        XCTAssertEqual(Set(ids).count, 1, "\(ids)")
    }

    func testThreadsStartedFromAPoolThreadComeFromThePool() throws {
        let pool = ThreadPool()
        let inner = Mutex<[UInt64]>([])
        for _ in 0..<3 {
            let outer = try XCTUnwrap(pool.spawn {
                // As a run starts its workers: two at once, joined.
                let workers = (0..<2).compactMap { _ in OSThread.spawn { inner.withLock { $0.append(Self.threadID()) } } }
                for w in workers { w.join() }
            })
            outer.join()
        }
        let ids = inner.withLock { $0 }
        XCTAssertEqual(ids.count, 6)
        // Three runs of two workers each, and the runs' own thread: never
        // more than three distinct threads, where fresh ones would be six.
        XCTAssertLessThanOrEqual(Set(ids).count, 3, "\(ids)")
    }

    func testABodyThatNeverReturnsLeavesThePoolWorking() throws {
        let pool = ThreadPool()
        let stuck = DispatchSemaphore(value: 0)
        // Never joined, as an abandoned run's thread; freed at the end.
        _ = try XCTUnwrap(pool.spawn { stuck.wait() })
        let ran = Atomic<Int>(0)
        for _ in 0..<3 {
            try XCTUnwrap(pool.spawn { ran.add(1, ordering: .relaxed) }).join()
        }
        XCTAssertEqual(ran.load(ordering: .relaxed), 3)
        stuck.signal()
    }

    func testShrinkingFindsTheSameAnswerOnReusedThreads() throws {
        // The counter's lost update (as ShrinkAndExploreTests shrinks it)
        // shrinks to one preemption twice over with the same schedule: runs
        // on reused threads decide exactly as on fresh ones.
        var settings = Support.settings(threads: 2, seed: 7, fuzz: .pct)
        settings.shrinkNs = 20_000_000_000
        let first = Support.run("counter", strategy: "unsynchronized", settings: settings)
        let again = Support.run("counter", strategy: "unsynchronized", settings: settings)
        let shrunk = try XCTUnwrap(first.output?.shrink, "\(String(describing: first.error))")
        XCTAssertEqual(shrunk.preemptionsAfter, 1)
        XCTAssertEqual(again.output?.shrink?.encoded, shrunk.encoded)
        XCTAssertEqual(again.output?.schedule.encoded, first.output?.schedule.encoded)
    }

    func testEmptyStepsGiveEachRoleAPointBetweenSteps() throws {
        // Each role passes its operation's start, a point between each two
        // of its steps, and its end: 8 steps make 20 decisions a round, where 1 makes 6.
        for (steps, perRound) in [(1, 6), (8, 20)] {
            let rounds = 50
            let settings = Support.settings(threads: 2, seed: 3, fuzz: .off, maxDecisions: 1_000_000, ops: rounds)
            let outcome = Support.run("empty", ["steps": .integer(steps)], strategy: "unsynchronized", settings: settings, scenario: true)
            let output = try XCTUnwrap(outcome.output, "\(String(describing: outcome.error))")
            XCTAssertEqual(output.rounds?.rounds, rounds)
            let decisions = try XCTUnwrap(output.schedule.decisions)
            XCTAssertEqual(Double(decisions) / Double(rounds), Double(perRound), accuracy: 1, "steps \(steps): \(decisions) decisions")
        }
    }
}
