import Foundation
import StressKitTestSupport
import StressKitTesting
import Testing

/// A downloader that must start one task per URL: `retrieve` checks and
/// records under its lock; `retrieveCheckingOutside` checks first, outside
/// the lock, then records (the check-then-act race).
private final class Downloader: @unchecked Sendable {
    // @unchecked: `lock` guards `started` and `tasksCreated` in the correct
    // method; the racy one reads `started` unguarded on purpose.
    let lock = StressLock(name: "downloader")
    var started: Set<String> = []
    var tasksCreated = 0

    func retrieve(_ url: String) {
        lock.withLock {
            guard !started.contains(url) else { return }
            started.insert(url)
            tasksCreated += 1
        }
    }

    func retrieveCheckingOutside(_ url: String) {
        let known = lock.withLock { started.contains(url) }
        guard !known else { return }
        lock.withLock {
            started.insert(url)
            tasksCreated += 1
        }
    }
}

private struct TooManyTasks: Error, CustomStringConvertible {
    let count: Int
    var description: String { "\(count) tasks for one URL" }
}

/// `StressTest.race`: a race in about ten lines, free or controlled.
@Suite struct RaceTests {
    @Test func aCorrectRacePassesUnderControl() async throws {
        let report = await StressTest.race(
            setup: { Downloader() },
            { $0.retrieve("a") },
            { $0.retrieve("a") },
            check: { d in if d.tasksCreated != 1 { throw TooManyTasks(count: d.tasksCreated) } })
            .schedule(.controlled).seed(3).maxDecisions(4_000)
            .expectSuccess()
        let trial = try #require(report?.trials.first)
        #expect(trial.schedule?.mode == .controlled)
        #expect((trial.rounds ?? 0) > 100)
    }

    @Test func aCheckThenActRaceIsFoundAndReplaysUnderControl() async throws {
        let race = StressTest.race(
            setup: { Downloader() },
            { $0.retrieveCheckingOutside("a") },
            { $0.retrieveCheckingOutside("a") },
            check: { d in if d.tasksCreated != 1 { throw TooManyTasks(count: d.tasksCreated) } })
            .schedule(.controlled).seed(3).stopOnViolation()
        let first = try await race.run()
        let trial = try #require(first.trials.first)
        #expect(trial.outcome == .violated)
        #expect(trial.violations.samples.first?.message.contains("2 tasks for one URL") == true)
        let again = try await race.run()
        #expect(again.trials.first?.schedule?.encoded == trial.schedule?.encoded)
    }
}
