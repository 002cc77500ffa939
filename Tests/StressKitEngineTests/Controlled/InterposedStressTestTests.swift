import Foundation
import StressKit
import StressKitTesting
import Testing

/// `StressTest.interpose()`: code that takes plain `NSLock`s, unchanged, seen
/// through the pthread interposer in an isolated test's child process.
@Suite struct InterposedStressTestTests {
    /// Two plain locks, taken in opposite orders by the two roles.
    final class TwoLocks: Sendable {
        let first = NSLock()
        let second = NSLock()
    }

    /// Under control the inversion is a deadlock found the moment its cycle
    /// closes, with both locks in it: the interposer makes each `NSLock` a
    /// scheduling point whose holder the scheduler knows. Without it a worker
    /// blocked on one would sleep in the kernel out of the scheduler's sight.
    @Test func plainLocksTakenInOppositeOrdersAreADeadlockFoundAtOnce() async throws {
        let report = try await StressTest.race(
            setup: { TwoLocks() },
            { s in
                s.first.lock(); s.second.lock()
                s.second.unlock(); s.first.unlock()
            },
            { s in
                s.second.lock(); s.first.lock()
                s.first.unlock(); s.second.unlock()
            })
            .interpose()
            .schedule(.controlled).fuzz(.yield).seed(1).ops(500)
            .deadlockAfter(.seconds(30)).timeout(.seconds(120))
            .isolated().run()
        let trial = try #require(report.trials.first)
        let text = report.failure?.description ?? ""
        #expect(trial.outcome == .deadlock, "\(text)")
        #expect(trial.schedule?.controlled == .full, "\(text)")
        #expect(text.contains("found at once by controlled scheduling"), "\(text)")
        // Each worker in the cycle holds one of the two (an unnamed lock is
        // called by what it is to pthreads and where it was first taken).
        #expect(text.contains("Wait-for cycle: "), "\(text)")
        #expect(text.components(separatedBy: " holds the mutex first taken at ").count >= 3, "both locks in the cycle: \(text)")
    }

    /// The interposer is preloaded into a trial's process, so a test that
    /// asks for it must run its trials in child processes.
    @Test func interposeInTheTestsOwnProcessSaysWhatToAdd() throws {
        let test = StressTest.race(setup: { TwoLocks() }, { _ in }, { _ in }).interpose()
        do {
            _ = try test.plan()
            Issue.record("an in-process test with interpose() was accepted")
        } catch {
            #expect(error.problems.map(\.setting) == ["interpose()"])
            #expect(error.description.contains("add .isolated()"), "\(error.description)")
        }
    }
}
