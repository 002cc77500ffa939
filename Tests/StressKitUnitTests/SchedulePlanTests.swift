import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The plan's `schedule` and `max_decisions` keys: how they layer, what the
/// trials carry, and every plan a controlled schedule refuses, with its line.
final class SchedulePlanTests: XCTestCase {
    func testScheduleIsFreeByDefaultAndLayersLikeFuzz() throws {
        let plan = try TestSupport.plan("""
            defaults:
              schedule: controlled
              max_decisions: 500
            experiments:
              - workload: counter
                strategies: [mutex]
              - name: free-one
                workload: counter
                strategies: [mutex]
                schedule: free
              - name: own-cap
                workload: counter
                strategies: [mutex]
                max_decisions: 1k
            """)
        XCTAssertEqual(plan.experiments.map(\.schedule), [.controlled, .free, .controlled])
        XCTAssertEqual(plan.experiments.map(\.maxDecisions), [500, 500, 1_000])
        let plain = try TestSupport.plan("experiments:\n  - workload: counter\n    strategies: [mutex]\n")
        XCTAssertEqual(plain.experiments[0].schedule, .free)
        XCTAssertEqual(plain.experiments[0].maxDecisions, PlanDefaults.maxDecisions)
    }

    func testTheTrialsCarryTheScheduleAndItsCapOnlyWhenControlled() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
                schedule: controlled
                max_decisions: 300
              - name: free-one
                workload: counter
                strategies: [mutex]
                threads: 2
                max_decisions: 300
            """)
        let trials = TrialMatrix.expand(plan)
        XCTAssertEqual(trials.map(\.schedule), [.controlled, .free])
        XCTAssertEqual(trials[0].maxDecisions, 300)
        // A free trial makes no decisions, but keeps the cap its plan gave,
        // for `--schedule controlled`; one whose plan gave none carries none.
        XCTAssertEqual(trials[1].maxDecisionsGiven, 300)
        var made = trials[1]
        made.schedule = .controlled
        XCTAssertEqual(TrialSettings(made).maxDecisions, 300, "--schedule controlled keeps the plan's max_decisions")
        let plain = TrialMatrix.expand(try TestSupport.plan("experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 2\n"))
        XCTAssertNil(plain[0].maxDecisionsGiven)
        let settings = TrialSettings(trials[0])
        XCTAssertEqual(settings.schedule, .controlled)
        XCTAssertEqual(settings.maxDecisions, 300)
        XCTAssertNil(settings.forcedSchedule)
        XCTAssertEqual(TrialSettings(trials[1]).schedule, .free)
    }

    func testBadValuesNameTheKeyAndLine() {
        let problems = TestSupport.problems("""
            experiments:
              - workload: counter
                strategies: [mutex]
                schedule: controled
              - workload: bank
                strategies: [mutex]
                max_decisions: 0
              - name: huge
                workload: bank
                strategies: [mutex]
                max_decisions: 100000001
            """)
        XCTAssertEqual(problems.map(\.description), [
            "test.yaml:4:15: experiments[0].schedule: expected free or controlled, found 'controled'",
            "test.yaml:7:20: experiments[1].max_decisions: 0 is out of range: expected a positive number of scheduling decisions from 1 to 100000000",
            "test.yaml:11:20: experiments[2].max_decisions: 100000001 is out of range: expected a positive number of scheduling decisions from 1 to 100000000",
        ])
    }

    func testANamedTaskStrategyIsRefusedWithTheDeterministicExecutorAsTheWayForAsyncCode() {
        let problems = TestSupport.problems("""
            experiments:
              - workload: counter
                schedule: controlled
                strategies: [mutex, actor]
            """)
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(problems.first?.path.description, "experiments[0].strategies[1]")
        XCTAssertEqual(problems.first?.line, 4)
        let message = problems.first?.message ?? ""
        XCTAssertTrue(message.hasPrefix("strategy 'actor' cannot run under schedule: controlled: its workers are tasks"), message)
        XCTAssertTrue(message.contains("executor: deterministic"), message)
    }

    func testANamedAsyncWriteStrategyRunsUnderControl() {
        let problems = TestSupport.problems("""
            defaults:
              schedule: controlled
            experiments:
              - workload: counter
                strategies: [serial-queue-async, rw-queue-async]
            """)
        XCTAssertEqual(problems.count, 0, "\(problems)")
    }

    func testAllLeavesOutWhatControlCannotRun() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                schedule: controlled
                strategies: all
              - name: free-one
                workload: counter
            """)
        let registry = TestSupport.registry
        let controlled = plan.experiments[0].strategies
        XCTAssertFalse(controlled.isEmpty)
        for name in controlled {
            let d = try XCTUnwrap(registry.strategy(named: name)).descriptor
            XCTAssertEqual(d.execution, .threads, name)
        }
        XCTAssertTrue(controlled.contains("serial-queue-async") && controlled.contains("rw-queue-async"), "\(controlled)")
        let free = plan.experiments[1].strategies
        XCTAssertTrue(free.contains("actor"), "free keeps them: \(free)")
        XCTAssertEqual(Set(free).subtracting(controlled), Set(free.filter {
            ControlledScheduleLimits.strategyProblem(registry.strategy(named: $0)!.descriptor) != nil
        }), "exactly the uncontrollable ones are left out")
    }

    func testPacedLoadIsRefusedAtTheLoadKey() {
        let problems = TestSupport.problems("""
            defaults:
              load: { mode: paced, rate: 10k }
            experiments:
              - workload: counter
                strategies: [mutex]
                schedule: controlled
            """)
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(problems.first?.path.description, "defaults.load")
        XCTAssertEqual(problems.first?.line, 2)
        XCTAssertTrue(problems.first?.message.hasPrefix("cannot run under schedule: controlled: a paced load") == true,
                      problems.first?.message ?? "")
    }

    func testALitmusScenarioIsRefusedWithWhyItCannotShowUnderControl() {
        for scenario in ["store-buffering", "message-passing", "load-buffering", "dekker"] {
            let problems = TestSupport.problems("""
                experiments:
                  - scenario: \(scenario)
                    strategies: [unsynchronized]
                    schedule: controlled
                """)
            XCTAssertEqual(problems.count, 1, scenario)
            XCTAssertEqual(problems.first?.path.description, "experiments[0].scenario", scenario)
            XCTAssertEqual(problems.first?.line, 2, scenario)
            let message = problems.first?.message ?? ""
            XCTAssertTrue(message.contains("sequentially consistent") && message.contains("store buffering's 0, 0") && message.contains("run litmus tests with schedule: free"),
                          message)
        }
        XCTAssertEqual(TestSupport.problems("""
            experiments:
              - scenario: lazy-init-race
                strategies: [unsynchronized]
                schedule: controlled
            """), [], "a one-shot race is no litmus test: control runs it")
    }

    func testOnlyTheLitmusScenariosNeedWeakMemory() {
        let marked = StressRegistry.builtIn.scenarios.filter(\.descriptor.needsWeakMemory).map(\.descriptor.name).sorted()
        XCTAssertEqual(marked, ["dekker", "load-buffering", "message-passing", "store-buffering"])
    }

    // MARK: - TrialSpec's JSON

    func testTheSpecRoundTripsWithAndWithoutTheNewFields() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
                schedule: controlled
                max_decisions: 777
            """)
        var controlled = TrialMatrix.expand(plan)[0]
        controlled.forcedSchedule = "w0:2,w1:1"
        let data = try JSONEncoder().encode(controlled)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["schedule"] as? String, "controlled")
        XCTAssertEqual(object["maxDecisions"] as? Int, 777)
        XCTAssertEqual(object["forcedSchedule"] as? String, "w0:2,w1:1")
        XCTAssertEqual(try JSONDecoder().decode(TrialSpec.self, from: data), controlled)
        XCTAssertEqual(TrialSettings(controlled).forcedSchedule, [0, 0, 1])

        var free = controlled
        free.schedule = .free
        free.forcedSchedule = nil
        let freeData = try JSONEncoder().encode(free)
        let freeObject = try XCTUnwrap(JSONSerialization.jsonObject(with: freeData) as? [String: Any])
        XCTAssertNil(freeObject["schedule"], "a free trial's spec is what it was before the key existed")
        XCTAssertNil(freeObject["maxDecisions"])
        XCTAssertEqual(try JSONDecoder().decode(TrialSpec.self, from: freeData), free)
    }

    func testARecordFromBeforeTheKeysReadsAsFree() throws {
        // A record as written before the keys existed: today's, without them.
        let spec = TrialSpec(id: "c/mutex/t2/r0", index: 0, plan: "p", experiment: "c", workload: "counter",
                             parameters: WorkloadParameters(), strategy: "mutex", threads: 2, repetition: 0, seed: 5,
                             warmupNs: 0, durationNs: 1_000_000, opsPerThread: nil, timeoutNs: 11_000_000_000)
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(spec)) as? [String: Any])
        for key in ["schedule", "maxDecisions", "forcedSchedule"] { object.removeValue(forKey: key) }
        let old = try JSONDecoder().decode(TrialSpec.self, from: JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(old, spec)
        XCTAssertEqual(old.schedule, .free)
        XCTAssertEqual(old.maxDecisions, PlanDefaults.maxDecisions)
        XCTAssertNil(old.forcedSchedule)
        XCTAssertEqual(TrialSettings(old).schedule, .free)
    }

    /// A controlled trial by time runs for its decisions, so its automatic
    /// timeout follows them (ten seconds plus 100 µs a decision, plus the 5 s
    /// a failure may be shrunk for), whether the plan or the command line
    /// made it controlled; an explicit one stays.
    func testAControlledTrialsTimeoutFollowsItsDecisions() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
                duration: 1s
                schedule: controlled
                max_decisions: 500000
              - name: free-one
                workload: counter
                strategies: [mutex]
                threads: 2
                duration: 1s
            """)
        let specs = TrialMatrix.expand(plan)
        XCTAssertEqual(specs[0].timeout, .seconds(65))
        XCTAssertEqual(specs[1].timeout, .milliseconds(12_100), "a free trial: warm-up + 2 × window + 10 s")
        var options = RunOptions()
        options.schedule = .controlled
        options.maxDecisions = 1_000_000
        let overridden = PlanRunner(registry: .builtIn, options: options).selectedTrials(of: plan)
        XCTAssertEqual(overridden.map(\.timeout), [.seconds(115), .seconds(115)])
        options.timeoutNs = 5_000_000_000
        XCTAssertEqual(PlanRunner(registry: .builtIn, options: options).selectedTrials(of: plan).map(\.timeout), [.seconds(5), .seconds(5)])
    }
}
