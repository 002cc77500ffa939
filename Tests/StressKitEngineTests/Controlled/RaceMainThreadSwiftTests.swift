import Foundation
import StressKitTestSupport
import StressKitTesting
import Testing

/// A role on the main thread from Swift Testing, whose tests run on the
/// cooperative pool while the process's main thread runs the test runner.
@Suite struct RaceMainThreadSwiftTests {
    private func race() -> StressTest {
        StressTest.race(
            setup: { MainThreadTally() },
            { t in t.lock.withLock { t.count += 1 } },
            mainThread: { t in t.lock.withLock { t.count += 1 } },
            check: { t in try #require(t.count == 2) })
            .seed(1).ops(50)
    }

    /// Swift Testing runs a test off the main thread, and on Linux drains
    /// the main queue off it too, so the main thread cannot take part in a
    /// controlled trial, in process or isolated: the trial is an error that
    /// says so and what to do, at once (never a hang).
    @Test func underControlInProcessTheTrialSaysTheMainThreadTakesNoPart() async throws {
        expectRefusal(try await race().schedule(.controlled).run())
    }

    @Test func underControlIsolatedTheTrialSaysTheMainThreadTakesNoPart() async throws {
        expectRefusal(try await race().schedule(.controlled).isolated().run())
    }

    private func expectRefusal(_ report: StressTestReport) {
        let trial = report.trials.first
        #expect(trial?.outcome == .error, "\(report.summary)")
        let problem = trial?.problemLine ?? ""
        #expect(problem.contains("runs on the main thread, which takes part in a controlled trial only where it serves "
                                 + "the main queue itself"), "\(problem)")
        #expect(problem.contains("run it from an XCTest method or a plan, or run it free"), "\(problem)")
    }

    /// Free, the main thread's role runs on the main queue, on whichever
    /// thread drains it, and the race passes.
    @Test func freeInProcessTheRoleRunsOnTheMainQueue() async throws {
        let report = try await race().run()
        #expect(report.trials.first?.outcome == .passed, "\(report.summary)")
    }
}
