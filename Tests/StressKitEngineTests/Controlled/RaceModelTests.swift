import StressKitTestSupport
import StressKitTesting
import Synchronization
import Testing

/// A counter whose increment reads, passes a point, then writes: the lost
/// update a preemption between the two shows.
private final class SplitCounter: @unchecked Sendable {
    // @unchecked: unsynchronized on purpose; only the tests' controlled or
    // joined accesses order it.
    var value = 0

    func increment() {
        let seen = value
        fuzzPoint("write back")
        value = seen + 1
    }
}

/// The same counter, its increment under a harness-aware lock.
private final class LockedCounter: @unchecked Sendable {
    // @unchecked: `lock` guards `value`.
    let lock = StressLock(name: "counter")
    var value = 0

    func increment() {
        lock.withLock {
            let seen = value
            fuzzPoint("write back")
            value = seen + 1
        }
    }
}

/// `StressTest.model`: a body that spawns threads and joins them, and
/// `StressTest.check`, which fails the round where it stands.
@Suite struct RaceModelTests {
    @Test func aLostUpdateInTenLinesIsFoundUnderControl() async throws {
        let model = StressTest.model(setup: { SplitCounter() }) { counter, threads in
            let a = threads.spawn { counter.increment() }
            let b = threads.spawn { counter.increment() }
            a.join()
            b.join()
            try StressTest.check(counter.value == 2, "an increment was lost")
        }
        .schedule(.controlled).fuzz(.pct).seed(7).shrink(false)
        let first = try #require(try await model.run().trials.first)
        #expect(first.outcome == .violated)
        #expect(first.violations.samples.first?.message.contains("RaceModelTests.swift:") == true)
        #expect(first.violations.samples.first?.message.hasSuffix(": an increment was lost") == true)
        let again = try #require(try await model.run().trials.first)
        #expect(again.schedule?.encoded == first.schedule?.encoded, "the same seed, the same schedule")
        #expect(again.violations.samples.first?.message == first.violations.samples.first?.message)
    }

    @Test func readingBeforeTheJoinIsFound() async throws {
        let checkLine = #line + 5
        let report = try await StressTest.model(spawning: 1, setup: { SplitCounter() }) { counter, threads in
            let a = threads.spawn { counter.increment() }
            let seen = counter.value  // the bug: read before the thread ended
            a.join()
            try StressTest.check(seen == 1, "read before the spawned thread ended")
        }
        .schedule(.controlled).seed(1).run()
        let trial = try #require(report.trials.first)
        #expect(trial.outcome == .violated)
        let message = try #require(trial.violations.samples.first?.message)
        #expect(message == "check failed at RaceModelTests.swift:\(checkLine): read before the spawned thread ended")
        // Shrunk or not, the interleaving ends at the failed check.
        let last = try #require(trial.trace?.last)
        #expect(last.kind == .check)
        #expect(last.line == checkLine)
        #expect(last.worker == 0, "the body is worker 0")
    }

    @Test func aCheckFailingMidRoundEndsItsRoleAndSkipsTheFinalCheck() async throws {
        // Free-running: every round fails at the check; the rest of the role
        // never runs, the final check (which would throw) is skipped, and
        // nothing hangs.
        let checkLine = #line + 3
        let free = try await StressTest.race(
            setup: { SplitCounter() },
            { c in try StressTest.check(c.value < 0, "the count went negative"); c.value += 100 },
            { c in c.increment() },
            check: { _ in throw CheckedAfterFailure() })
            .ops(200).warmup(.zero).seed(2).run()
        let trial = try #require(free.trials.first)
        #expect(trial.outcome == .violated)
        let messages = trial.violations.samples.map(\.message)
        #expect(!messages.isEmpty)
        #expect(messages.allSatisfy { $0 == "check failed at RaceModelTests.swift:\(checkLine): the count went negative" }, "\(messages)")
        #expect(trial.rounds == 200, "every round ran to its end")
        #expect(trial.violations.count == 200, "one violation a round: the check's, never the final check's")
    }

    @Test func aCorrectModelPassesOverManySeedsFreeAndControlled() async throws {
        for seed in UInt64(1)...12 {
            let model = StressTest.model(setup: { LockedCounter() }) { counter, threads in
                let a = threads.spawn { counter.increment() }
                counter.increment()
                let b = threads.spawn { counter.increment() }
                a.join()
                b.join()
                try StressTest.check(counter.value == 3, "an increment was lost")
            }
            .seed(seed).ops(300).warmup(.zero)
            let free = try await model.fuzz(seed % 2 == 0 ? .light : .off).run()
            #expect(free.failure == nil, "free, seed \(seed): \(free.failure?.description ?? "")")
            #expect((free.trials.first?.rounds ?? 0) >= 300)
            let controlled = try await model.schedule(.controlled).fuzz(seed % 2 == 0 ? .pct : .yield).run()
            #expect(controlled.failure == nil, "controlled, seed \(seed): \(controlled.failure?.description ?? "")")
            #expect((controlled.trials.first?.rounds ?? 0) >= 300)
        }
    }

    @Test func aCorrectModelIsCompleteUnderExploration() async throws {
        let report = try await StressTest.model(spawning: 1, setup: { LockedCounter() }) { counter, threads in
            let a = threads.spawn { counter.increment() }
            counter.increment()
            a.join()
            try StressTest.check(counter.value == 2, "an increment was lost")
        }
        // 22 schedules with at most 1 preemption (165 with 2: 6.4 s at load 19).
        .explore(preemptions: 1).seed(1).run()
        let exploration = try #require(report.trials.first?.exploration)
        #expect(exploration.complete, "\(exploration)")
        #expect(exploration.failed == 0)
        #expect(exploration.schedules > 1)
    }

    @Test func aLostUpdateIsFoundByExploration() async throws {
        let report = try await StressTest.model(spawning: 1, setup: { SplitCounter() }) { counter, threads in
            let a = threads.spawn { counter.increment() }
            counter.increment()
            a.join()
            try StressTest.check(counter.value == 2, "an increment was lost")
        }
        .explore(preemptions: 2).shrink(false).seed(1).run()
        let trial = try #require(report.trials.first)
        #expect(trial.outcome == .violated)
        #expect((trial.exploration?.failed ?? 0) >= 1)
        #expect(trial.trace?.last?.kind == .check, "the failing interleaving ends at the check")
    }

    @Test func spawningMoreThanTheModelHasRoomForSaysWhatToWrite() async throws {
        let report = try await StressTest.model(spawning: 1, setup: { SplitCounter() }) { counter, threads in
            threads.spawn { counter.increment() }.join()
            threads.spawn { counter.increment() }.join()
        }
        .ops(5).warmup(.zero).run()
        let message = try #require(report.trials.first?.violations.samples.first?.message)
        #expect(message.contains("StressTest.model(spawning: 2"), "\(message)")
        #expect(throws: StressTestError.self) {
            _ = try StressTest.model(spawning: 0, setup: { SplitCounter() }) { _, _ in }.plan()
        }
    }

    @Test func aJoinOfAStuckThreadIsADeadlockUnderControl() async throws {
        let report = try await StressTest.model(spawning: 1, setup: { StressSemaphore(value: 0, name: "never") }) { never, threads in
            let a = threads.spawn { never.wait() }
            a.join()
        }
        .schedule(.controlled).seed(1).deadlockAfter(.seconds(30)).timeout(.seconds(60)).isolated().run()
        let trial = try #require(report.trials.first)
        #expect(trial.outcome == .deadlock, "\(report.failure?.description ?? "")")
        let text = report.failure?.description ?? ""
        #expect(text.contains("join thread 1"), "\(text)")
        #expect(text.contains("never"), "\(text)")
    }

    @Test func aJoinCycleIsADeadlockUnderControl() async throws {
        let report = try await StressTest.model(setup: { LaterHandle() }) { later, threads in
            // Thread 1 joins thread 2, which joins thread 1.
            let a = threads.spawn {
                while later.thread.withLock({ $0 }) == nil { fuzzPoint("handle yet?") }
                later.thread.withLock { $0 }?.join()
            }
            let b = threads.spawn { a.join() }
            later.thread.withLock { $0 = b }
            b.join()
        }
        .schedule(.controlled).seed(1).deadlockAfter(.seconds(30)).timeout(.seconds(60)).isolated().run()
        let trial = try #require(report.trials.first)
        #expect(trial.outcome == .deadlock, "\(report.failure?.description ?? "")")
        let text = report.failure?.description ?? ""
        #expect(text.contains("found at once by controlled scheduling"), "\(text)")
        #expect(text.contains("waiting for a signal on the semaphore 'join thread 1'"), "\(text)")
        #expect(text.contains("waiting for a signal on the semaphore 'join thread 2'"), "\(text)")
    }

    @Test func aSpawnedThreadMaySpawnAfterTheBodyReturned() async throws {
        let report = try await StressTest.model(setup: { LockedCounter() }) { counter, threads in
            threads.spawn {
                counter.increment()
                threads.spawn { counter.increment() }
            }
        }
        .schedule(.controlled).fuzz(.yield).seed(5).ops(200).run()
        #expect(report.failure == nil, "\(report.failure?.description ?? "")")
        #expect((report.trials.first?.rounds ?? 0) >= 200)
    }

    @Test func aThreadMayBeJoinedTwice() async throws {
        let report = try await StressTest.model(spawning: 1, setup: { LockedCounter() }) { counter, threads in
            let a = threads.spawn { counter.increment() }
            a.join()
            a.join()
            try StressTest.check(counter.value == 1, "the thread ran \(counter.value) times")
        }
        .schedule(.controlled).fuzz(.yield).seed(4).ops(100).run()
        #expect(report.failure == nil, "\(report.failure?.description ?? "")")
    }
}

private struct CheckedAfterFailure: Error {}

/// Where thread 1 finds thread 2's handle, to join it.
private final class LaterHandle: Sendable {
    let thread = Mutex<StressTest.SpawnedThread?>(nil)
}
