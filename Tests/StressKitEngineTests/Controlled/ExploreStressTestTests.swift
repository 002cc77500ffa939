import Foundation
import StressKitTestSupport
import StressKitTesting
import Testing

/// A one-shot flag two roles try to claim: `claim` checks and sets under its
/// lock; `claimCheckingOutside` checks first, outside the lock, then sets
/// (the check-then-act race, which one preemption between the two shows).
private final class Claim: @unchecked Sendable {
    // @unchecked: `lock` guards `taken` and `winners` in the correct method;
    // the racy one reads `taken` unguarded on purpose.
    let lock = StressLock(name: "claim")
    var taken = false
    var winners = 0

    func claim() {
        lock.withLock {
            guard !taken else { return }
            taken = true
            winners += 1
        }
    }

    func claimCheckingOutside() {
        let known = lock.withLock { taken }
        guard !known else { return }
        lock.withLock {
            taken = true
            winners += 1
        }
    }
}

private struct TwoWinners: Error, CustomStringConvertible {
    let winners: Int
    var description: String { "\(winners) roles claimed it" }
}

/// `StressTest.explore(preemptions:)` and `shrink`: a tiny race explored in
/// every schedule with at most 2 preemptions.
@Suite struct ExploreStressTestTests {
    @Test func aCorrectRaceIsCompleteForItsBoundWithNoFailure() async throws {
        let report = await StressTest.race(
            setup: { Claim() },
            { $0.claim() },
            { $0.claim() },
            check: { c in if c.winners != 1 { throw TwoWinners(winners: c.winners) } })
            .explore(preemptions: 2).seed(1)
            .expectSuccess()
        let trial = try #require(report?.trials.first)
        let exploration = try #require(trial.exploration)
        #expect(trial.schedule?.mode == .controlled, "explore makes the test controlled")
        #expect(exploration.complete)
        #expect(exploration.failed == 0)
        #expect(exploration.bound == 2)
        #expect(exploration.schedules > 1)
    }

    @Test func aCheckThenActRaceIsFoundByExploration() async throws {
        let report = try await StressTest.race(
            setup: { Claim() },
            { $0.claimCheckingOutside() },
            { $0.claimCheckingOutside() },
            check: { c in if c.winners != 1 { throw TwoWinners(winners: c.winners) } })
            .explore(preemptions: 2).shrink(false).seed(1)
            .run()
        let trial = try #require(report.trials.first)
        #expect(trial.outcome == .violated)
        #expect((trial.exploration?.failed ?? 0) >= 1)
        #expect(trial.exploration?.failingSchedule != nil)
        #expect(trial.trace?.isEmpty == false, "the failing schedule's interleaving")
    }

    @Test func badExploreAndShrinkValuesAreNamedByTheirSetting() throws {
        let test = StressTest(workload: "counter").strategies(["mutex"]).threads([2])
        #expect(throws: StressTestError.self) { _ = try test.explore(preemptions: 9).plan() }
        do {
            _ = try test.explore(preemptions: 9).shrink(seconds: 99_999).plan()
        } catch {
            let text = "\(error)"
            #expect(text.contains("explore.preemptions") || text.contains("explore[\"preemptions\"]"), "\(text)")
            #expect(text.contains("shrink[\"seconds\"]") || text.contains("shrink.seconds"), "\(text)")
        }
        let plan = try test.explore(preemptions: 1, operations: 3, seconds: 5, pruning: false).shrink(seconds: 2).plan()
        #expect(plan.experiments[0].schedule == .controlled)
        #expect(plan.experiments[0].shrinkNs == 2_000_000_000)
        #expect(plan.experiments[0].exploration?.operations == 3)
        #expect(plan.experiments[0].exploration?.pruning == false)
        #expect(try test.schedule(.controlled).shrink(false).plan().experiments[0].shrinkNs == 0)
    }
}
