@testable import StressKit
@testable import StressCore
@testable import StressRunner
import XCTest

/// The harness executor's decisions at a job boundary (each policy's
/// ``ExecutionScheduler``): pure and
/// seeded, so each property is checked exactly, over many seeds, with no
/// thread involved.
final class JobPolicyTests: XCTestCase {
    /// The scheduler the harness executor gets for `profile`, found the way
    /// it finds it: by the policy's name.
    private func scheduler(_ profile: FuzzProfile, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        SchedulingPolicies.policy(for: profile).makeScheduler(settings: FuzzSettings(profile), seed: seed, workers: workers)
    }

    /// `count` picks among `ready` (the same set every time), the oldest job
    /// always worker 0's.
    private func picks(_ profile: FuzzProfile, seed: UInt64, workers: Int = 4, count: Int = 3_000,
                       parallel: Bool = false) -> [Int] {
        var policy = scheduler(profile, seed: seed, workers: workers)
        let ready = Array(0..<workers)
        return (0..<count).map { i in policy.nextWorker(among: ready, oldest: 0, now: UInt64(i) * 1_000, parallel: parallel) }
    }

    /// How many times the chosen worker changes along `sequence`.
    private func switches(_ sequence: [Int]) -> Int {
        zip(sequence, sequence.dropFirst()).filter { $0 != $1 }.count
    }

    func testTheSameSeedMakesTheSameChoices() {
        for profile in [FuzzProfile.yield, .chaos, .pct, .light] {
            XCTAssertEqual(picks(profile, seed: 11), picks(profile, seed: 11), "\(profile)")
            XCTAssertNotEqual(picks(profile, seed: 11), picks(profile, seed: 12), "\(profile): the seed decides")
        }
    }

    func testWithFuzzingOffTheOldestJobRunsFirst() {
        XCTAssertEqual(Set(picks(.off, seed: 5)), [0])
    }

    /// PCT over jobs: the highest-priority ready worker runs until a change
    /// point demotes it; with depth 3 that is two demotions within the
    /// horizon, so a fixed ready set sees at most three runs of one worker
    /// each (two if both change points fall on one pick), the last one for
    /// good.
    func testPCTRunsOneWorkerAtATimeAndDemotesItAtEachChangePoint() {
        var firstWorkers: Set<Int> = []
        for seed in UInt64(1)...50 {
            let sequence = picks(.pct, seed: seed, count: Int(SchedulingDraws.pctHorizon) + 500)
            XCTAssertTrue((1...2).contains(switches(sequence)), "seed \(seed): \(switches(sequence)) switches")
            let tail = sequence.suffix(500)
            XCTAssertEqual(Set(tail).count, 1, "seed \(seed): after the last change point one worker runs on")
            firstWorkers.insert(sequence[0])
        }
        XCTAssertEqual(firstWorkers, [0, 1, 2, 3], "the seed draws the priority order")
    }

    /// The deterministic executor's random walk: it stays with the last
    /// worker about half the time (nine tenths under `light`) and otherwise
    /// picks any ready worker, so every worker gets turns.
    func testTheRandomWalkStaysOftenAndReachesEveryWorker() {
        for (profile, stay) in [(FuzzProfile.yield, 0.5), (.light, 0.9)] {
            let sequence = picks(profile, seed: 3, count: 20_000)
            XCTAssertEqual(Set(sequence), [0, 1, 2, 3], "\(profile)")
            // A switch needs a "move" (1 - stay) that lands on another of
            // the 4 workers (3 in 4).
            let expected = Double(sequence.count) * (1 - stay) * 0.75
            XCTAssertEqual(Double(switches(sequence)), expected, accuracy: expected * 0.1, "\(profile)")
        }
    }

    /// On the parallel executor the oldest job runs first unless the dice
    /// reorder: with `yield` (10% yields) at least one pick in five is
    /// reordered, and most picks keep first-come order.
    func testTheParallelExecutorKeepsFirstComeOrderUnlessItReorders() {
        let sequence = picks(.yield, seed: 8, count: 10_000, parallel: true)
        let reordered = sequence.filter { $0 != 0 }.count
        // Reordered with probability max(2 × 0.1, 0.1) = 0.2, to a uniform
        // pick among 4, which is another worker 3 times in 4: 15%.
        XCTAssertEqual(Double(reordered) / 10_000, 0.15, accuracy: 0.02)
    }

    /// Chaos on the parallel executor delays jobs (spins and sleeps, at the
    /// profile's rates) and starves one victim worker for windows capped at
    /// its share of the time; PCT and `off` never delay.
    func testChaosDelaysAndStarvesOneVictimWhilePCTAndOffDoNot() {
        for profile in [FuzzProfile.off, .pct] {
            var policy = scheduler(profile, seed: 1, workers: 4)
            XCTAssertTrue((0..<10_000).allSatisfy { policy.delay(for: $0 % 4, now: UInt64($0) * 1_000) == .none }, "\(profile)")
        }
        var policy = scheduler(.chaos, seed: 1, workers: 4)
        var spins = 0, sleeps = 0, excluded = [Int](repeating: 0, count: 4)
        for i in 0..<100_000 {
            let now = UInt64(i) * 10_000  // 10 µs a pick: one second in all
            switch policy.delay(for: i % 4, now: now) {
            case .spin: spins += 1
            case .sleep: sleeps += 1
            default: break
            }
            let chosen = policy.nextWorker(among: [0, 1, 2, 3], oldest: i % 4, now: now, parallel: true)
            if chosen != i % 4 { excluded[i % 4] += 1 }
        }
        XCTAssertGreaterThan(spins, 0)
        XCTAssertGreaterThan(sleeps, 0)
        // The victim's oldest job is passed over far more often than the
        // others' (which only the reordering dice pass over).
        let victim = excluded.indices.max { excluded[$0] < excluded[$1] }!
        let others = excluded.indices.filter { $0 != victim }.map { excluded[$0] }
        XCTAssertGreaterThan(Double(excluded[victim]), 1.5 * Double(others.max()!), "\(excluded)")
    }

    /// A controlled trial restarts its policy's scheduler in place for each
    /// new execution (every round of a scenario) instead of making a new
    /// one: a restarted scheduler must then make exactly the choices a new
    /// one makes from the same seed, whatever the old one did before, or a
    /// seed's schedules would change. Checked for every built-in policy,
    /// several worker counts, depths and seeds, over changing runnable sets
    /// with timed waiters among them.
    func testARestartedSchedulerChoosesExactlyAsANewOne() {
        var variants: [(String, FuzzSettings)] = []
        for profile in [FuzzProfile.off, .light, .yield, .chaos, .pct, .portfolio] { variants.append(("\(profile)", FuzzSettings(profile))) }
        for depth in [1, 2, 5] {
            var settings = FuzzSettings(.pct)
            settings.pctDepth = depth
            variants.append(("pct depth \(depth)", settings))
        }
        var starving = FuzzSettings(.yield)
        starving.starveProbability = 0.3
        variants.append(("yield starving", starving))
        for (name, settings) in variants {
            let policy = SchedulingPolicies.policy(for: settings.profile)
            for workers in 1...4 {
                let slots = workers + 1 + QueueBook.slots
                for seed in UInt64(1)...6 {
                    let fresh = { (seed: UInt64) -> any ExecutionScheduler in
                        var made = policy.makeScheduler(settings: settings, seed: seed, workers: workers)
                        made.admitQueueWorkers(first: workers + 1, count: QueueBook.slots)
                        return made
                    }
                    // The old scheduler runs an execution of its own first.
                    var restarted = fresh(seed)
                    restarted.expectLength(37)
                    _ = choices(of: &restarted, slots: slots, count: 50 + Int(seed) * 7, draws: seed)
                    let next = seed &* 1_000 &+ 17
                    XCTAssertTrue(restarted.restart(seed: next), "\(name): every built-in scheduler restarts in place")
                    restarted.admitQueueWorkers(first: workers + 1, count: QueueBook.slots)
                    restarted.expectLength(120)
                    var made = fresh(next)
                    made.expectLength(120)
                    let after = choices(of: &restarted, slots: slots, count: 400, draws: 99)
                    let new = choices(of: &made, slots: slots, count: 400, draws: 99)
                    if let i = after.indices.first(where: { after[$0] != new[$0] }) {
                        XCTFail("\(name), \(workers) workers, seed \(seed): choice \(i) is \(after[i]) restarted, \(new[i]) new")
                    }
                }
            }
        }
    }

    /// A long workload trial's epochs keep PCT's raw change points, one of
    /// which may fall on an execution's first pick: it demotes the worker
    /// that ran last, which for a restarted scheduler must be nobody, as for
    /// a new one, not the last worker of the execution before.
    func testARestartedPCTDemotesNobodyAtAChangePointOnItsFirstPick() {
        let workers = 3
        let settings = FuzzSettings(.pct)
        guard let seed = (UInt64(1)...200_000).first(where: {
            SchedulingDraws(seed: $0, workers: workers, pctDepth: PCTPolicy.defaultDepth, starves: false).changePoints.first == 1
        }) else { return XCTFail("no seed in range has a change point at pick 1") }
        let fresh = { (seed: UInt64) -> any ExecutionScheduler in
            var made = PCTPolicy().makeScheduler(settings: settings, seed: seed, workers: workers)
            made.admitQueueWorkers(first: workers + 1, count: QueueBook.slots)
            made.expectLength(Int(SchedulingDraws.pctHorizon))
            return made
        }
        for previous in UInt64(1)...8 {
            var restarted = fresh(previous)
            _ = choices(of: &restarted, slots: workers, count: 30, draws: previous)
            XCTAssertTrue(restarted.restart(seed: seed))
            restarted.admitQueueWorkers(first: workers + 1, count: QueueBook.slots)
            restarted.expectLength(Int(SchedulingDraws.pctHorizon))
            var made = fresh(seed)
            XCTAssertEqual(choices(of: &restarted, slots: workers, count: 50, draws: 5),
                           choices(of: &made, slots: workers, count: 50, draws: 5), "after an execution of seed \(previous)")
        }
    }

    /// `count` choices of `policy` among runnable sets drawn from `draws`
    /// (each a nonempty subset of `0..<slots`), a tenth of them with a timed
    /// waiter that may time out.
    private func choices(of policy: inout any ExecutionScheduler, slots: Int, count: Int, draws: UInt64) -> [Int] {
        var random = SplitMix64(seed: draws)
        var picked: [Int] = []
        for _ in 0..<count {
            var runnable = (0..<slots).filter { _ in random.next() % 3 == 0 }
            if runnable.isEmpty { runnable = [random.next(below: slots)] }
            let oldest = runnable[random.next(below: runnable.count)]
            let waiters = (0..<slots).filter { !runnable.contains($0) }
            if !waiters.isEmpty, random.next() % 10 == 0 {
                picked.append(policy.nextWorker(among: runnable, orTimeOut: waiters[random.next(below: waiters.count)], oldest: oldest))
            } else {
                picked.append(policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false))
            }
        }
        return picked
    }
}
