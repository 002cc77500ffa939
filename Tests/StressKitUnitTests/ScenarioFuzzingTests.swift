@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// Fuzzing per round in scenarios: PCT's change points drawn afresh for each
/// round over the round's own count of fuzz points, its depth, its scope, and
/// the per-round stagger; then a round that never ends because a role spins.
/// (That PCT's priority order changes from round to round is
/// ``ScenarioTests/testPerRoundPCTDrawsAFreshOrderForEveryRound()``.)
final class ScenarioFuzzingTests: XCTestCase {
    private final class Nothing: Sendable {}

    private func shared(_ settings: FuzzSettings, workers: Int = 2, seed: UInt64 = 11) -> SoftPCT {
        let operations = [StressOperation<Nothing>("a", weight: 1, steps: [.unguarded("x") { _, _ in .next }])]
        return SoftPCT(board: SiteBoard(workers: workers, operations: operations), settings: settings, seed: seed)
    }

    /// Passes `points` fuzz points of a round, as its workers would.
    private func run(points: Int, on shared: SoftPCT) {
        for _ in 0..<points { shared.count() }
    }

    /// Depth d gives d − 1 change points per round, each below the round's
    /// count of points: 8 before any round has run, then the mean count of
    /// the rounds so far. Drawn afresh for every round, from the seed and the
    /// round alone.
    func testChangePointsAreDrawnAfreshForEachRoundOverItsOwnCountOfPoints() {
        func schedule(seed: UInt64, pointsPerRound: Int, rounds: Int = 40) -> [[UInt64]] {
            let s = shared(FuzzSettings(.pct), seed: seed)
            return (0..<rounds).map { round in
                s.beginRound(round)
                defer { run(points: pointsPerRound, on: s) }
                return s.changePoints
            }
        }
        let small = schedule(seed: 11, pointsPerRound: 100)
        XCTAssertEqual(small[0].count, 2, "depth 3: two change points")
        XCTAssertTrue(small[0].allSatisfy { $0 < 8 }, "before any round has run: over 8 points: \(small[0])")
        for points in small.dropFirst() {
            XCTAssertEqual(points.count, 2)
            XCTAssertEqual(points, points.sorted())
            XCTAssertTrue(points.allSatisfy { $0 < 100 }, "within the round's 100 points: \(points)")
        }
        XCTAssertGreaterThan(Set(small).count, 30, "afresh for each round")
        XCTAssertGreaterThanOrEqual(small.dropFirst().flatMap { $0 }.max() ?? 0, 50,
                                    "spread over the whole round, not its start")
        XCTAssertEqual(small, schedule(seed: 11, pointsPerRound: 100), "the seed and the round decide")
        XCTAssertNotEqual(small, schedule(seed: 12, pointsPerRound: 100))

        // A round ten times as long spreads its points ten times as wide.
        let large = schedule(seed: 11, pointsPerRound: 1_000)
        XCTAssertTrue(large.dropFirst().allSatisfy { $0.allSatisfy { $0 < 1_000 } })
        XCTAssertGreaterThanOrEqual(large.dropFirst().flatMap { $0 }.max() ?? 0, 500)
    }

    /// `pct` is depth 3 unless the plan says otherwise; a deeper schedule has
    /// more change points in every round.
    func testPCTDepthIsThreeByDefaultAndThePlanSetsIt() throws {
        XCTAssertEqual(FuzzSettings(.pct).pctDepth, 3)
        let plan = try TestSupport.plan("""
            experiments:
              - scenario: store-buffering
                strategies: [unsynchronized]
                ops: 10
                fuzz: { profile: pct, pct_depth: 6 }
            """)
        let fuzz = try XCTUnwrap(plan.experiments.first?.fuzz)
        XCTAssertEqual(fuzz.pctDepth, 6)
        let s = shared(fuzz)
        s.beginRound(0)
        run(points: 50, on: s)
        s.beginRound(1)
        XCTAssertEqual(s.changePoints.count, 5)
    }

    /// `pct_scope: trial` keeps one priority order for the whole trial, as for
    /// a workload; `round` (the default) draws one per round. Driven through
    /// the rounds' own decisions at their barrier.
    func testPCTScopeTrialKeepsOneOrderWhileRoundScopeDrawsOnePerRound() {
        func orders(scope: PCTScope?) -> [[UInt64]] {
            var fuzz = FuzzSettings(.pct)
            fuzz.pctScope = scope
            let s = shared(fuzz, workers: 4)
            let settings = TrialSettings(threads: 4, seed: 5, warmupNs: 0, stop: .operations(perThread: 1_000), fuzz: fuzz)
            let rounds = RoundProgram(roles: 4, makeState: { Nothing() }, arbiter: { _ in RoundOutcome() }, reset: { $0 },
                                      grade: { _ in .acceptable }, arbiterSite: 0, settings: settings, fuzz: s)
            let control = TrialControl()
            control.enter(TrialControl.measure)
            rounds.prepare(measured: true)
            var seen = [s.priorityOrder]
            for round in 1..<30 {
                XCTAssertEqual(rounds.decide(phase: TrialControl.measure, control: control, nextRound: round, measured: true), 1,
                               "a fuzzed trial runs a round a stride")
                seen.append(s.priorityOrder)
            }
            return seen
        }
        XCTAssertEqual(Set(orders(scope: .trial)).count, 1, "one order for the trial")
        XCTAssertGreaterThan(Set(orders(scope: nil)).count, 10, "a fresh order for (nearly) every round")
        XCTAssertEqual(orders(scope: nil), orders(scope: .round), "round is the default")
    }

    /// Each worker's stagger before its role is drawn afresh for each round,
    /// within the profile's bound, from the worker's seed and the round alone.
    func testStaggerIsDrawnAfreshForEachRoundWithinItsBound() {
        let settings = FuzzSettings(.chaos)
        XCTAssertGreaterThan(settings.staggerMaxNanoseconds, 0)
        func staggers(seed: UInt64) -> [UInt64] {
            let f = Fuzzer(settings: settings, seed: seed, thread: 0, threads: 2, coordinator: nil, probe: .detached)
            return (0..<100).map { f.stagger(round: $0) }
        }
        let first = staggers(seed: 21)
        XCTAssertTrue(first.allSatisfy { $0 <= settings.staggerMaxNanoseconds })
        XCTAssertGreaterThan(Set(first).count, 90, "a different delay in (nearly) every round")
        XCTAssertGreaterThan(first.max() ?? 0, settings.staggerMaxNanoseconds / 2, "spread over the bound")
        XCTAssertEqual(first, staggers(seed: 21))
        XCTAssertNotEqual(first, staggers(seed: 22), "each worker (seed) its own")
        let light = Fuzzer(settings: FuzzSettings(.light), seed: 21, thread: 0, threads: 2, coordinator: nil, probe: .detached)
        XCTAssertEqual(light.stagger(round: 3), 0, "light has no stagger")
    }
}
