import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The plan's `shrink` and `explore` keys: defaults, layering, what the
/// trials and the engine's settings carry, the trial spec's JSON, the
/// automatic timeouts, and every bad value with its line.
final class ExplorePlanTests: XCTestCase {
    private let counter = "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 2\n"

    // MARK: - shrink

    func testAControlledTrialShrinksForFiveSecondsByDefaultAndAFreeOneNever() throws {
        let plan = try TestSupport.plan(counter + "    schedule: controlled\n  - name: free-one\n    workload: counter\n    strategies: [mutex]\n    threads: 2\n")
        XCTAssertEqual(plan.experiments.map(\.shrinkNs), [PlanDefaults.shrinkNs, PlanDefaults.shrinkNs])
        XCTAssertEqual(PlanDefaults.shrinkNs, 5_000_000_000)
        let trials = TrialMatrix.expand(plan)
        XCTAssertEqual(trials[0].shrinkNanoseconds, 5_000_000_000)
        XCTAssertNil(trials[1].shrinkNanoseconds, "a free trial's record is what it was before the key existed")
        XCTAssertEqual(TrialSettings(trials[0]).shrinkNs, 5_000_000_000)
        XCTAssertEqual(TrialSettings(trials[1]).shrinkNs, 0, "a free trial has no schedule to shrink")
        XCTAssertNil(TrialSettings(trials[0]).exploration)
    }

    func testShrinkLayersLikeTheOtherKeys() throws {
        let plan = try TestSupport.plan("""
            defaults:
              schedule: controlled
              shrink: false
            experiments:
              - workload: counter
                strategies: [mutex]
              - name: longer
                workload: counter
                strategies: [mutex]
                shrink: { seconds: 12 }
              - name: on
                workload: counter
                strategies: [mutex]
                shrink: true
            """)
        XCTAssertEqual(plan.experiments.map(\.shrinkNs), [0, 12_000_000_000, PlanDefaults.shrinkNs])
        let trials = TrialMatrix.expand(plan).filter { $0.threads == 2 }
        XCTAssertEqual(trials.map { TrialSettings($0).shrinkNs }, [0, 12_000_000_000, 5_000_000_000])
    }

    func testAFreeExperimentsOwnShrinkIsKeptForAScheduleMadeControlledLater() throws {
        var trial = TrialMatrix.expand(try TestSupport.plan(counter + "    shrink: false\n"))[0]
        XCTAssertEqual(trial.shrinkNanoseconds, 0)
        XCTAssertEqual(trial.shrinkBudgetNs, 0)
        trial.schedule = .controlled
        XCTAssertEqual(TrialSettings(trial).shrinkNs, 0, "--schedule controlled keeps the plan's shrink: false")
    }

    // MARK: - explore

    func testExploreFillsItsDefaultsAndMakesTheExperimentControlled() throws {
        let plan = try TestSupport.plan(counter + "    explore: { preemptions: 2 }\n")
        let e = plan.experiments[0]
        XCTAssertEqual(e.schedule, .controlled, "explore implies schedule: controlled")
        XCTAssertEqual(e.exploration, ExplorationSettings(preemptions: 2, operations: 2, budgetNs: 60_000_000_000, pruning: true))
        let trial = TrialMatrix.expand(plan)[0]
        XCTAssertEqual(trial.schedule, .controlled)
        XCTAssertEqual(TrialSettings(trial).exploration, e.exploration)
        XCTAssertEqual(TrialSettings(trial).schedule, .controlled)
    }

    func testEveryExploreKeyIsRead() throws {
        let plan = try TestSupport.plan("""
            defaults:
              explore: { preemptions: 1, operations: 3, seconds: 20, pruning: false }
            experiments:
              - workload: counter
                strategies: [mutex]
              - name: own
                workload: counter
                strategies: [mutex]
                schedule: controlled
                explore:
                  preemptions: 0
            """)
        XCTAssertEqual(plan.experiments[0].exploration,
                       ExplorationSettings(preemptions: 1, operations: 3, budgetNs: 20_000_000_000, pruning: false))
        XCTAssertEqual(plan.experiments[1].exploration, ExplorationSettings(preemptions: 0))
    }

    func testExploreWithAFreeScheduleIsAPlanErrorAtTheScheduleKey() {
        let problems = TestSupport.problems("""
            experiments:
              - workload: counter
                strategies: [mutex]
                explore: { preemptions: 2 }
                schedule: free
            """)
        XCTAssertEqual(problems.map(\.description), [
            "test.yaml:5:15: experiments[0].schedule: explore (experiments[0].explore, line 4) enumerates a controlled trial's schedules, "
            + "so it cannot run with schedule: free: leave schedule out (explore makes it controlled) or drop explore",
        ])
        let fromDefaults = TestSupport.problems("""
            defaults:
              schedule: free
            experiments:
              - workload: counter
                strategies: [mutex]
                explore: { preemptions: 1 }
            """)
        XCTAssertEqual(fromDefaults.count, 1)
        XCTAssertTrue(fromDefaults[0].description.hasPrefix("test.yaml:2:13: defaults.schedule: explore (experiments[0].explore, line 6)"),
                      fromDefaults[0].description)
    }

    func testAnExploredActorIsRefusedAsAControlledOneIs() {
        let problems = TestSupport.problems(counter.replacingOccurrences(of: "[mutex]", with: "[actor]") + "    explore: { preemptions: 1 }\n")
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].message.contains("strategy 'actor' cannot run under schedule: controlled"), problems[0].message)
    }

    func testBadValuesNameTheKeyAndLine() {
        let problems = TestSupport.problems("""
            experiments:
              - workload: counter
                strategies: [mutex]
                explore: { operations: 2 }
              - workload: counter
                strategies: [mutex]
                explore: { preemptions: 9, operations: 0, seconds: 0, pruning: maybe, depth: 3 }
              - workload: counter
                strategies: [mutex]
                explore: 2
              - workload: counter
                strategies: [mutex]
                shrink: sometimes
              - workload: counter
                strategies: [mutex]
                shrink: { seconds: 0 }
              - workload: counter
                strategies: [mutex]
                shrink: {}
            """)
        XCTAssertEqual(problems.map(\.description), [
            "test.yaml:4:14: experiments[0].explore: explore needs preemptions (the most preemptions a schedule may have, 0 to 8), e.g. explore: { preemptions: 2 }",
            "test.yaml:7:29: experiments[1].explore.preemptions: 9 is out of range: expected a number of preemptions (more than 8 never finishes) from 0 to 8",
            "test.yaml:7:44: experiments[1].explore.operations: 0 is out of range: expected a number of operations per worker from 1 to 64",
            "test.yaml:7:56: experiments[1].explore.seconds: 0 is out of range: expected a whole number of seconds from 1 to 86400",
            "test.yaml:7:68: experiments[1].explore.pruning: expected true or false, found 'maybe'",
            "test.yaml:7:75: experiments[1].explore.depth: unknown key 'depth' (allowed here: preemptions, operations, seconds, pruning)",
            "test.yaml:10:14: experiments[2].explore: expected a mapping (key: value lines), found '2'",
            "test.yaml:13:13: experiments[3].shrink: expected true, false or { seconds: N }, found 'sometimes'",
            "test.yaml:16:24: experiments[4].shrink.seconds: 0 is out of range: expected a whole number of seconds (shrink: false turns shrinking off) from 1 to 3600",
            "test.yaml:19:13: experiments[5].shrink: shrink's mapping needs seconds (the most time shrinking may take), e.g. shrink: { seconds: 10 }",
        ])
    }

    // MARK: - Timeouts

    func testAutomaticTimeoutsCoverShrinkingAndExploration() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
                schedule: controlled
                max_decisions: 1000
              - name: unshrunk
                workload: counter
                strategies: [mutex]
                threads: 2
                schedule: controlled
                max_decisions: 1000
                shrink: false
              - name: explored
                workload: counter
                strategies: [mutex]
                threads: 2
                explore: { preemptions: 2, seconds: 30 }
              - name: free-one
                workload: counter
                strategies: [mutex]
                threads: 2
                duration: 1s
                warmup: 0s
            """)
        let timeouts = TrialMatrix.expand(plan).map(\.timeoutNanoseconds)
        XCTAssertEqual(timeouts, [
            10_000_000_000 + 1_000 * 100_000 + 5_000_000_000,  // decisions, plus the shrink bound
            10_000_000_000 + 1_000 * 100_000,
            30_000_000_000 + 5_000_000_000 + 10_000_000_000,    // budget + shrink + 10 s
            2 * 1_000_000_000 + 10_000_000_000,                 // free: as before
        ])
    }

    func testAnExplicitTimeoutIsKept() throws {
        let plan = try TestSupport.plan(counter + "    explore: { preemptions: 1 }\n    timeout: 3m\n")
        XCTAssertEqual(TrialMatrix.expand(plan)[0].timeoutNanoseconds, 180_000_000_000)
    }

    // MARK: - The trial spec's JSON

    func testTheSpecsJSONSaysHowTheTrialRanAndReadsBack() throws {
        var trial = TrialMatrix.expand(try TestSupport.plan(counter + "    explore: { preemptions: 2, operations: 3, pruning: false }\n    shrink: { seconds: 7 }\n"))[0]
        trial.exploration?.shard = ExplorationSettings.Shard(index: 2, count: 4)
        let data = try JSONEncoder().encode(trial)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["shrinkNs"] as? Int, 7_000_000_000)
        let explore = try XCTUnwrap(object["explore"] as? [String: Any])
        XCTAssertEqual(explore["preemptions"] as? Int, 2)
        XCTAssertEqual(explore["operations"] as? Int, 3)
        XCTAssertEqual(explore["budgetNs"] as? Int, 60_000_000_000)
        XCTAssertEqual(explore["pruning"] as? Bool, false)
        XCTAssertEqual(explore["shard"] as? String, "2/4")
        let back = try JSONDecoder().decode(TrialSpec.self, from: data)
        XCTAssertEqual(back, trial)
        XCTAssertEqual(TrialSettings(back).exploration?.shard, ExplorationSettings.Shard(index: 2, count: 4))
        XCTAssertEqual(TrialSettings(back).shrinkNs, 7_000_000_000)

        let free = TrialMatrix.expand(try TestSupport.plan(counter))[0]
        let freeObject = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(free)) as? [String: Any])
        XCTAssertNil(freeObject["explore"])
        XCTAssertNil(freeObject["shrinkNs"])
    }

    func testMakingATrialFreeClearsItsExploration() throws {
        var trial = TrialMatrix.expand(try TestSupport.plan(counter + "    explore: { preemptions: 1 }\n"))[0]
        XCTAssertNotNil(trial.exploration)
        trial.schedule = .free
        XCTAssertNil(trial.exploration, "only a controlled trial explores")
    }
}
