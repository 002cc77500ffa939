import Foundation
import ArgumentParser
@testable import StressBenchCLI
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `--explore`, `--no-shrink`, `--shrink-seconds` and `--ops` as `run` and
/// `replay` read them, what they do to the selected trials (and `--shard`
/// with `--explore`), and the rerun and replay commands that carry them.
final class ExploreCommandLineTests: XCTestCase {
    private let plan = """
        experiments:
          - workload: counter
            strategies: [mutex, spinlock]
            threads: [1, 2]
          - name: bank
            workload: bank
            strategies: [mutex]
            threads: 2
        """

    private func options(_ arguments: [String]) throws -> RunOptions {
        var options = RunOptions()
        try TrialOverrides.parse(arguments).apply(to: &options)
        return options
    }

    // MARK: - The options

    func testExploreReachesTheRunOptionsAndTheRerunCommand() throws {
        let short = try options(["--explore", "preemptions=2"])
        XCTAssertEqual(short.exploration, ExplorationSettings(preemptions: 2))
        XCTAssertEqual(short.rerun.options, ["--explore", "preemptions=2"])

        let full = try options(["--explore", "preemptions=3,operations=4,seconds=30,pruning=off"])
        XCTAssertEqual(full.exploration, ExplorationSettings(preemptions: 3, operations: 4, budgetNs: 30_000_000_000, pruning: false))
        XCTAssertEqual(full.rerun.options, ["--explore", "preemptions=3,operations=4,seconds=30,pruning=off"])
        XCTAssertEqual(try ExplorationLimits.parse(flag: ExplorationLimits.flag(full.exploration!)), full.exploration)
        XCTAssertNil(try options([]).exploration)
    }

    func testShrinkAndOpsReachTheRunOptionsAndTheRerunCommand() throws {
        let off = try options(["--no-shrink"])
        XCTAssertEqual(off.shrinkNs, 0)
        XCTAssertEqual(off.rerun.options, ["--no-shrink"])
        let longer = try options(["--shrink-seconds", "12", "--ops", "3"])
        XCTAssertEqual(longer.shrinkNs, 12_000_000_000)
        XCTAssertEqual(longer.opsPerThread, 3)
        XCTAssertEqual(longer.rerun.options, ["--ops", "3", "--shrink-seconds", "12"])
        let none = try options([])
        XCTAssertNil(none.shrinkNs)
        XCTAssertNil(none.opsPerThread)
    }

    func testBadFormsAreUsageErrors() {
        let cases: [([String], String)] = [
            (["--explore", "2"], "--explore: '2' is not key=value; expected preemptions=K[,operations=M][,seconds=S][,pruning=off]"),
            (["--explore", "operations=2"], "--explore: preemptions is required (the most preemptions a schedule may have): expected preemptions=K"),
            (["--explore", "preemptions=9"], "--explore: preemptions expects a whole number from 0 to 8, got '9'"),
            (["--explore", "preemptions=two"], "--explore: preemptions expects a whole number from 0 to 8, got 'two'"),
            (["--explore", "preemptions=1,operations=0"], "--explore: operations expects a whole number from 1 to 64, got '0'"),
            (["--explore", "preemptions=1,seconds=0"], "--explore: seconds expects a whole number from 1 to 86400, got '0'"),
            (["--explore", "preemptions=1,pruning=maybe"], "--explore: pruning expects on or off, got 'maybe'"),
            (["--explore", "preemptions=1,depth=3"], "--explore: unknown key 'depth' (expected preemptions, operations, seconds, pruning)"),
            (["--explore", "preemptions=1,preemptions=2"], "--explore: 'preemptions' is given twice"),
            (["--explore", "preemptions=1,"], "--explore: '' is not key=value"),
            (["--explore", "preemptions=1", "--schedule", "free"], "--explore enumerates a controlled trial's schedules, so it cannot run with --schedule free"),
            (["--explore", "preemptions=1", "--schedule", "w0:2,w1:3"], "--explore and a recorded --schedule exclude each other"),
            (["--no-shrink", "--shrink-seconds", "3"], "--no-shrink and --shrink-seconds exclude each other: give one"),
            (["--shrink-seconds", "0"], "--shrink-seconds expects a whole number of seconds from 1 to 3600, got 0 (--no-shrink turns shrinking off)"),
            (["--ops", "0"], "--ops expects a positive number of operations per worker, got 0"),
            (["--ops", "3", "--duration", "1s"], "--ops and --duration exclude each other"),
        ]
        for (arguments, expected) in cases {
            XCTAssertThrowsError(try TrialOverrides.parse(arguments), "\(arguments)") { error in
                let message = TrialOverrides.message(for: error)
                XCTAssertTrue(message.hasPrefix(expected), "\(arguments): \(message)")
                XCTAssertEqual(TrialOverrides.exitCode(for: error).rawValue, 64, "ArgumentParser's usage code, which main maps to 2")
            }
        }
    }

    // MARK: - The selected trials

    func testExploreMakesEveryTrialControlledAndExploredWithATimeoutThatCoversIt() throws {
        var o = try options(["--explore", "preemptions=1,seconds=20"])
        o.only = ["counter/mutex/t2"]
        let trials = PlanRunner(registry: TestSupport.registry, options: o).selectedTrials(of: try TestSupport.plan(plan))
        XCTAssertEqual(trials.map(\.id), ["counter/mutex/t2/r0"])
        XCTAssertEqual(trials[0].schedule, .controlled)
        XCTAssertEqual(trials[0].exploration, ExplorationSettings(preemptions: 1, budgetNs: 20_000_000_000))
        XCTAssertGreaterThanOrEqual(trials[0].timeoutNanoseconds, 20_000_000_000 + 5_000_000_000 + 10_000_000_000)
    }

    func testWithExploreTheShardSplitsEachTrialsScheduleSpaceNotTheMatrix() throws {
        let loaded = try TestSupport.plan(plan)
        var o = try options(["--explore", "preemptions=2"])
        o.shard = TrialShard(index: 2, count: 3)
        let runner = PlanRunner(registry: TestSupport.registry, options: o)
        let trials = runner.selectedTrials(of: loaded)
        XCTAssertEqual(trials.map(\.id), runner.matrix(of: loaded).map(\.id), "every runner runs every trial")
        XCTAssertTrue(trials.allSatisfy { $0.exploration?.shard == ExplorationSettings.Shard(index: 2, count: 3) })

        var sliced = RunOptions()
        sliced.shard = TrialShard(index: 2, count: 3)
        let slice = PlanRunner(registry: TestSupport.registry, options: sliced).selectedTrials(of: loaded)
        XCTAssertLessThan(slice.count, trials.count, "without --explore the shard takes a slice of the matrix")
        XCTAssertTrue(slice.allSatisfy { $0.exploration == nil })
    }

    func testAPlanWhoseEveryTrialExploresIsShardedBySchedulesToo() throws {
        let explored = try TestSupport.plan(plan.replacingOccurrences(of: "experiments:", with: "defaults:\n  explore: { preemptions: 1 }\nexperiments:"))
        var o = RunOptions()
        o.shard = TrialShard(index: 1, count: 2)
        let trials = PlanRunner(registry: TestSupport.registry, options: o).selectedTrials(of: explored)
        XCTAssertEqual(trials.count, 5)
        XCTAssertTrue(trials.allSatisfy { $0.exploration?.shard == ExplorationSettings.Shard(index: 1, count: 2) })
    }

    func testARecordedScheduleIsFollowedOnceNotExplored() throws {
        let explored = try TestSupport.plan(plan.replacingOccurrences(of: "experiments:", with: "defaults:\n  explore: { preemptions: 1 }\nexperiments:"))
        var o = try options(["--schedule", "w0:2,w1:3", "--ops", "2"])
        o.only = ["counter/mutex/t2/r0"]
        let trials = PlanRunner(registry: TestSupport.registry, options: o).selectedTrials(of: explored)
        XCTAssertEqual(trials.count, 1)
        XCTAssertNil(trials[0].exploration)
        XCTAssertEqual(trials[0].forcedSchedule, "w0:2,w1:3")
        XCTAssertEqual(trials[0].opsPerThread, 2)
        XCTAssertNil(trials[0].durationNanoseconds)
    }

    func testShrinkOverridesReachTheEngine() throws {
        let loaded = try TestSupport.plan(plan.replacingOccurrences(of: "experiments:", with: "defaults:\n  schedule: controlled\nexperiments:"))
        for (arguments, ns) in [([String](), UInt64(5_000_000_000)), (["--no-shrink"], 0), (["--shrink-seconds", "9"], 9_000_000_000)] {
            let trials = PlanRunner(registry: TestSupport.registry, options: try options(arguments)).selectedTrials(of: loaded)
            XCTAssertTrue(trials.allSatisfy { TrialSettings($0).shrinkNs == ns }, "\(arguments)")
        }
    }

    // MARK: - Replay lines

    private func failure(shrunkTo operations: Int?, explored: Bool = false) -> TrialResult {
        var r = Synthetic.trial(repetition: 0, opsPerSecond: 1000, latencyNs: 100, outcome: .violated)
        r.trial.schedule = .controlled
        if explored { r.trial.exploration = ExplorationSettings(preemptions: 2, operations: 3) }
        r.schedule = ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .full)
        if !explored {
            var shrink = ScheduleRecord.Shrinking(eventsBefore: 40, eventsAfter: 9, preemptionsBefore: 6, preemptionsAfter: 1,
                                                  encoded: "w0:1,w1:2,w0:1", attempts: 12, timedOut: false)
            shrink.operations = operations
            r.shrink = shrink
        }
        r.violations = ViolationReport(count: 1, samples: [
            ViolationSample(thread: 0, operation: "increment", step: nil, opNumber: 1, message: "lost an update"),
        ])
        return r
    }

    func testAShrunkScheduleReplaysWithTheOperationsItWasShrunkTo() {
        let rerun = RerunCommand(executable: "stressbench", options: ["--duration", "2s", "--schedule", "controlled", "--no-shrink"])
        XCTAssertEqual(failure(shrunkTo: 1).scheduleSummary(planFile: "p.yaml", rerun: rerun)?.replay,
                       "stressbench replay p.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:1,w1:2,w0:1 --ops 1 --no-shrink")
        XCTAssertEqual(failure(shrunkTo: nil).scheduleSummary(planFile: "p.yaml", rerun: rerun)?.replay,
                       "stressbench replay p.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:1,w1:2,w0:1 --duration 2s --no-shrink",
                       "the trial's own window holds when shrinking kept the operations")
    }

    func testAnExplorationsFailingScheduleReplaysOnceWithItsOperations() {
        let rerun = RerunCommand(executable: "stressbench", options: ["--explore", "preemptions=2,operations=3", "--max-decisions", "900"])
        XCTAssertEqual(failure(shrunkTo: nil, explored: true).scheduleSummary(planFile: "p.yaml", rerun: rerun)?.replay,
                       "stressbench replay p.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:2,w1:3 --ops 3 --max-decisions 900")
        var scenario = failure(shrunkTo: nil, explored: true)
        scenario.trial.scenario = true
        XCTAssertEqual(scenario.scheduleSummary(planFile: "p.yaml", rerun: nil)?.replay,
                       "stressbench replay synthetic.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:2,w1:3 --ops 1"
                           .replacingOccurrences(of: "synthetic.yaml", with: "p.yaml"),
                       "a scenario explores one round")
    }

    /// Shrinking busies the workers a failure involves: the replay names
    /// them, as a count when they are the first few and as a list otherwise,
    /// and `--busy-workers` reads both back.
    func testBusyWorkersReplayAsACountOrAList() throws {
        var first = failure(shrunkTo: 2)
        first.shrink?.busyWorkers = [0, 1]
        XCTAssertEqual(first.scheduleSummary(planFile: "p.yaml", rerun: nil)?.replay,
                       "stressbench replay p.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:1,w1:2,w0:1 --ops 2 --busy-workers 2")
        var picked = failure(shrunkTo: 2)
        picked.shrink?.busyWorkers = [6, 3, 6]
        XCTAssertEqual(picked.shrink?.busyWorkers, [3, 6], "sorted, without repeats")
        XCTAssertEqual(picked.scheduleSummary(planFile: "p.yaml", rerun: nil)?.replay,
                       "stressbench replay p.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:1,w1:2,w0:1 --ops 2 --busy-workers w3,w6")

        XCTAssertEqual(try options(["--ops", "2", "--busy-workers", "w3,w6"]).busyWorkers?.workers, [3, 6])
        XCTAssertEqual(try options(["--ops", "2", "--busy-workers", "3,6"]).busyWorkers?.workers, [3, 6])
        XCTAssertEqual(try options(["--ops", "2", "--busy-workers", "2"]).busyWorkers?.workers, [0, 1])
        XCTAssertEqual(try options(["--ops", "2", "--busy-workers", "w2"]).busyWorkers?.workers, [2], "one named worker")
        for bad in ["0", "-1", "w", "w1,,w2", "w-1", "two"] {
            XCTAssertThrowsError(try options(["--ops", "2", "--busy-workers", bad]), bad) { error in
                XCTAssertTrue(TrialOverrides.message(for: error).contains("--busy-workers"), "\(bad): \(error)")
            }
        }

        // A record of when this was a count reads as the first few.
        let old = #"{"eventsBefore":9,"eventsAfter":4,"preemptionsBefore":2,"preemptionsAfter":1,"encoded":"w0:1","attempts":3,"timedOut":false,"busyWorkers":2}"#
        let decoded = try JSONDecoder().decode(ScheduleRecord.Shrinking.self, from: Data(old.utf8))
        XCTAssertEqual(decoded.busyWorkers, [0, 1])
        let encoded = String(decoding: try JSONEncoder().encode(picked.shrink), as: UTF8.self)
        XCTAssertTrue(encoded.contains(#""busyWorkers":[3,6]"#), encoded)
    }

    func testReplayAcceptsEveryNewOverride() {
        XCTAssertNoThrow(try ReplayCommand.parse(["p.yaml", "--only", "x/y/t2/r0", "--schedule", "w0:2,w1:3", "--ops", "1", "--no-shrink"]))
        XCTAssertNoThrow(try ReplayCommand.parse(["p.yaml", "--only", "x/y/t2/r0", "--explore", "preemptions=1", "--shrink-seconds", "3"]))
        XCTAssertNoThrow(try RunCommand.parse(["p.yaml", "--explore", "preemptions=2", "--shard", "1/2"]))
    }
}
