@testable import StressCore
import XCTest

/// PCT under controlled scheduling spreads its change points over the
/// execution's measured length: a change point past the execution's end
/// never fires, and PCT's bound 1/(n·k^(d−1)) needs every one to land on one
/// of the k points that happen.
final class PCTLengthTests: XCTestCase {
    private func pct(seed: UInt64, workers: Int, depth: Int = 0) -> any ExecutionScheduler {
        var settings = FuzzSettings(.pct)
        if depth > 0 { settings.pctDepth = depth }
        return PCTPolicy().makeScheduler(settings: settings, seed: seed, workers: workers)
    }

    /// The indices in `sequence` where the chosen worker changes.
    private func switchPicks(_ sequence: [Int]) -> [Int] {
        sequence.indices.dropFirst().filter { sequence[$0] != sequence[$0 - 1] }
    }

    /// Told the execution is 24 picks long, every demotion happens within
    /// them (two with the default depth 3, unless both fall on one pick),
    /// and over many seeds every pick but the first (before which nobody
    /// has run, so there is nobody to demote) gets one.
    func testChangePointsLandWithinTheExpectedLength() {
        let length = 24
        var demotedAt = Set<Int>()
        for seed in UInt64(1)...300 {
            var policy = pct(seed: seed, workers: 2)
            policy.expectLength(length)
            let sequence = (0..<(length + 500)).map { _ in policy.nextWorker(among: [0, 1], oldest: 0, now: 0, parallel: false) }
            let switches = switchPicks(sequence)
            XCTAssertTrue((1...2).contains(switches.count), "seed \(seed): \(switches)")
            XCTAssertTrue(switches.allSatisfy { $0 < length }, "seed \(seed): a change point past pick \(length): \(switches)")
            demotedAt.formUnion(switches)
        }
        XCTAssertEqual(demotedAt, Set(1..<length), "the change points cover the execution")
    }

    /// A plan's `pct_depth: 2` gives one change point (the depth the bound
    /// 1/(n·k) is stated for), not the default's two.
    func testAPlansDepthOfTwoGivesOneChangePoint() {
        for seed in UInt64(1)...100 {
            var policy = pct(seed: seed, workers: 3, depth: 2)
            policy.expectLength(30)
            let sequence = (0..<200).map { _ in policy.nextWorker(among: [0, 1, 2], oldest: 0, now: 0, parallel: false) }
            XCTAssertEqual(switchPicks(sequence).count, 1, "seed \(seed)")
        }
    }

    /// Over the default horizon the change points are the ones the seed has
    /// always drawn (`next(below:)` over 2,000), so the harness executor's
    /// schedules, which are never told a length, do not move.
    func testTheDefaultHorizonKeepsTheSeedsChangePoints() {
        for seed in UInt64(1)...200 {
            let draws = SchedulingDraws(seed: seed, workers: 4, pctDepth: 3, starves: false)
            var random = SplitMix64(seed: SplitMix64.derive(seed, 0x10B5))
            for i in stride(from: 3, to: 0, by: -1) { _ = random.next(below: i + 1) }
            let old = (0..<2).map { _ in 1 + UInt64(random.next(below: Int(SchedulingDraws.pctHorizon))) }.sorted()
            XCTAssertEqual(draws.changePoints, old, "seed \(seed)")
        }
    }

    /// Every draw a seed makes (the priorities' shuffle, the change points,
    /// the starvation victim) is the one it has always made: the draws were
    /// rewritten to make fewer arrays (a controlled scenario makes them once a
    /// round), and the seeds' schedules must not move. The reference is the
    /// former code, written out here.
    func testTheSeedsDrawsAreTheFormerCodes() {
        for seed in UInt64(1)...200 {
            for workers in [0, 1, 2, 3, 8] {
                for (depth, starves) in [(0, true), (1, false), (2, true), (3, false), (5, true), (64, false)] {
                    let draws = SchedulingDraws(seed: seed, workers: workers, pctDepth: depth, starves: starves)
                    var random = SplitMix64(seed: SplitMix64.derive(seed, 0x10B5))
                    var order = Array(0..<workers)
                    for i in stride(from: workers - 1, to: 0, by: -1) { order.swapAt(i, random.next(below: i + 1)) }
                    var priority = [Int](repeating: 0, count: workers + 1)
                    for (rank, w) in order.enumerated() { priority[w] = workers + rank }
                    priority[workers] = Int.max
                    let raw = (0..<max(0, depth - 1)).map { _ in random.next() }
                    let points = raw.map { 1 + $0.multipliedFullWidth(by: SchedulingDraws.pctHorizon).high }.sorted()
                    let victim = starves ? random.next(below: max(1, workers)) : -1
                    let place = "seed \(seed), \(workers) workers, depth \(depth), starves \(starves)"
                    XCTAssertEqual(draws.priority, priority, place)
                    XCTAssertEqual(draws.changeDraws, raw, place)
                    XCTAssertEqual(draws.changePoints, points, place)
                    XCTAssertEqual(draws.victim, victim, place)
                    var rest = draws.random
                    XCTAssertEqual(rest.next(), random.next(), "the stream goes on where it did: \(place)")
                }
            }
        }
    }

    /// A controlled round spreads the change points in place: the spread
    /// over its length, less the picks already made.
    func testSpreadingInPlaceIsTheSpreadLessThePicksMade() {
        for seed in UInt64(1)...200 {
            for depth in [1, 2, 3, 5] {
                var draws = SchedulingDraws(seed: seed, workers: 3, pctDepth: depth, starves: false)
                for (length, done) in [(2, 0), (20, 0), (20, 7), (1_000, 300), (5, 5), (3, 10)] as [(UInt64, UInt64)] {
                    let expected = draws.changeDraws.map { 2 + $0.multipliedFullWidth(by: max(1, length - 1)).high }
                        .sorted().filter { $0 > done }
                    draws.spreadChangePoints(within: length, after: done)
                    XCTAssertEqual(draws.changePoints, expected, "seed \(seed), depth \(depth), \(length) picks, \(done) made")
                }
            }
        }
    }

    /// A scenario's rounds: the first is spread over the guess, every later
    /// one over the longest round measured so far.
    func testRoundsAfterTheFirstUseTheLongestMeasuredRound() {
        final class Lengths { var told: [Int] = [] }
        struct Recording: ExecutionScheduler {
            let lengths: Lengths
            mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int { runnable[0] }
            mutating func expectLength(_ picks: Int) { lengths.told.append(picks) }
        }
        let lengths = Lengths()
        let scheduler = ControlledScheduler(workers: 2, policy: { _ in Recording(lengths: lengths) }, seeds: { $0 }, forced: nil,
                                            maxDecisions: 1_000, lengthGuess: 40, onDeadlock: { _, _, _ in })
        scheduler.beginRound(0)
        for _ in 0..<30 { scheduler.log.append(0) }
        scheduler.beginRound(1)
        for _ in 0..<20 { scheduler.log.append(1) }
        scheduler.beginRound(2)
        for _ in 0..<35 { scheduler.log.append(0) }
        scheduler.beginRound(3)
        XCTAssertEqual(lengths.told, [40, 40, 30, 30, 35])
    }

    /// A workload trial with an operation budget guesses its first
    /// execution's length from the budget, capped at one epoch; one that
    /// runs for a duration takes a whole epoch.
    func testAWorkloadTrialGuessesItsLengthFromItsBudget() {
        let twoOps = TrialSettings(threads: 2, seed: 1, warmupNs: 0, stop: .operations(perThread: 1))
        XCTAssertEqual(ControlledTrial.lengthGuess(twoOps), 2 * ControlledTrial.decisionsPerOperationGuess)
        let many = TrialSettings(threads: 4, seed: 1, warmupNs: 0, stop: .operations(perThread: 1_000))
        XCTAssertEqual(ControlledTrial.lengthGuess(many), ControlledScheduler.epochLength)
        let timed = TrialSettings(threads: 2, seed: 1, warmupNs: 0, stop: .duration(nanoseconds: 1_000_000))
        XCTAssertEqual(ControlledTrial.lengthGuess(timed), ControlledScheduler.epochLength)
    }
}
