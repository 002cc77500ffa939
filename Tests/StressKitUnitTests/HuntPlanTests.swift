import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The plan's `hunt` key (its values, layering, errors and `--hunt`'s
/// override), the NDJSON stream's hunt line, and which child trials an
/// isolated stress test takes when it hunts.
final class HuntPlanTests: XCTestCase {
    private let counter = "experiments:\n  - workload: counter\n    strategies: [mutex]\n    threads: 2\n"

    // MARK: - The plan key

    func testHuntIsOffUnlessTheKeySaysADuration() throws {
        XCTAssertEqual(try TestSupport.plan(counter).experiments[0].huntNs, 0, "no hunt by default")
        for (value, ns) in [("10s", 10_000_000_000 as UInt64), ("500ms", 500_000_000), ("1h", 3_600_000_000_000), ("10", 10_000_000_000),
                            ("off", 0), ("false", 0), ("no", 0), ("0s", 0)] {
            XCTAssertEqual(try TestSupport.plan(counter + "    hunt: \(value)\n").experiments[0].huntNs, ns, value)
        }
    }

    func testHuntLayersLikeTheOtherKeys() throws {
        let plan = try TestSupport.plan("""
            defaults:
              hunt: 10s
            experiments:
              - workload: counter
                strategies: [mutex]
              - name: longer
                workload: counter
                strategies: [mutex]
                hunt: 30s
              - name: none
                workload: counter
                strategies: [mutex]
                hunt: off
            """)
        XCTAssertEqual(plan.experiments.map(\.huntNs), [10_000_000_000, 30_000_000_000, 0])
    }

    func testBadValuesNameTheFileTheKeyAndTheLine() {
        let problems = TestSupport.problems("""
            defaults:
              hunt: [10s]
            experiments:
              - workload: counter
                strategies: [mutex]
                hunt: 2h
              - workload: counter
                strategies: [mutex]
                hunt: soon
              - workload: counter
                strategies: [mutex]
                hunt: -5s
              - workload: counter
                strategies: [mutex]
                hunt: true
              - workload: counter
                strategies: [mutex]
                hunt: { seconds: 10 }
            """)
        let expected = "expected a duration up to 1h, such as 10s (the time to hunt for each free-running failure under control), or off, found"
        XCTAssertEqual(problems.map(\.description), [
            "test.yaml:2:9: defaults.hunt: \(expected) a list",
            "test.yaml:6:11: experiments[0].hunt: \(expected) '2h'",
            "test.yaml:9:11: experiments[1].hunt: \(expected) 'soon'",
            "test.yaml:12:11: experiments[2].hunt: \(expected) '-5s'",
            "test.yaml:15:11: experiments[3].hunt: \(expected) 'true'",
            "test.yaml:18:11: experiments[4].hunt: \(expected) a mapping",
        ])
    }

    func testTheRunsHuntOverridesEveryExperimentsAndZeroTurnsItOff() throws {
        let plan = try TestSupport.plan(counter + "    hunt: 10s\n  - name: quiet\n    workload: counter\n    strategies: [mutex]\n")
        let trials = TrialMatrix.expand(plan)
        let loud = TrialResult.failed(try XCTUnwrap(trials.first { $0.experiment == "counter" }), .violated, FailureReport(message: "x"))
        let quiet = TrialResult.failed(try XCTUnwrap(trials.first { $0.experiment == "quiet" }), .violated, FailureReport(message: "x"))
        var options = RunOptions(isolation: .inProcess)
        XCTAssertEqual(PlanRunner(registry: TestSupport.registry, options: options).huntBudgetNs(for: loud, in: plan), 10_000_000_000)
        XCTAssertEqual(PlanRunner(registry: TestSupport.registry, options: options).huntBudgetNs(for: quiet, in: plan), 0)
        options.huntNs = 3_000_000_000
        XCTAssertEqual(PlanRunner(registry: TestSupport.registry, options: options).huntBudgetNs(for: quiet, in: plan), 3_000_000_000)
        options.huntNs = 0
        XCTAssertEqual(PlanRunner(registry: TestSupport.registry, options: options).huntBudgetNs(for: loud, in: plan), 0)
    }

    // MARK: - The NDJSON line

    private func huntRecord(found: Bool) -> HuntRecord {
        var result = TraceFixtures.lostUpdateResult()
        result.trial.seed = 7
        return found
            ? HuntRecord(found: true, attempts: 1, seconds: 0.4, seed: 7, trial: "stressbench run p.yaml --only x --seed 7", result: result)
            : HuntRecord(found: false, attempts: 3, seconds: 10, seed: nil, trial: "stressbench run p.yaml --only x", result: nil)
    }

    func testAHuntLineNamesItsTrialAndSaysItsKind() throws {
        let line = HuntLine(trial: "counter/unsynchronized/t2/r0", hunt: huntRecord(found: true))
        let data = try ResultCoding.encoder(pretty: false).encode(line)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["kind", "trial", "hunt"])
        XCTAssertEqual(object["kind"] as? String, "hunt")
        XCTAssertEqual(object["trial"] as? String, "counter/unsynchronized/t2/r0")
        XCTAssertEqual(HuntLine.decode(data), line)
        XCTAssertNil(HuntLine.decode(try ResultCoding.encoder(pretty: false).encode(TraceFixtures.lostUpdateResult())),
                     "a trial record is no hunt line")

        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
            WorkloadTestSupport.path("Schemas/results.schema.json")))) as? [String: Any])
        var undocumented: [String] = []
        SchemaWalker(root: schema).check(object, against: ["$ref": "#/$defs/huntLine"], at: "", missing: &undocumented)
        XCTAssertEqual(undocumented, [], "the schema describes the hunt line")
    }

    /// The stream as a run writes it: the free trial's record, then, after
    /// the run, its hunt's line; read back, the record has its hunt.
    func testTheStreamReadsBackWithEachHuntFoldedIntoItsRecord() throws {
        let path = try TestSupport.temporaryDirectory().appendingPathComponent("r.ndjson").path
        var free = Synthetic.trial(experiment: "counter", strategy: "unsynchronized", repetition: 0, opsPerSecond: 1, latencyNs: 1,
                                   outcome: .violated)
        free.huntCommand = "stressbench run p.yaml --only counter/unsynchronized/t2"
        var other = Synthetic.trial(experiment: "counter", strategy: "unsynchronized", repetition: 1, opsPerSecond: 1, latencyNs: 1,
                                    outcome: .violated)
        other.huntCommand = free.huntCommand
        do {
            let stream = try RecordStream(path: path)
            stream.append(contentsOf: [free, other])
            stream.append(HuntLine(trial: free.trial.id, hunt: huntRecord(found: true)))
            stream.append(HuntLine(trial: other.trial.id, hunt: huntRecord(found: false)))
            stream.append(HuntLine(trial: "no/such/t1/r0", hunt: huntRecord(found: false)))
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines[2].hasPrefix("{\"hunt\":{"), String(lines[2]))
        let read = try RecordStream.read(path)
        XCTAssertEqual(read.map(\.trial.id), [free.trial.id, other.trial.id], "a hunt line is no record of its own")
        XCTAssertEqual(read[0].hunt, huntRecord(found: true))
        XCTAssertEqual(read[1].hunt, huntRecord(found: false))
        free.hunt = huntRecord(found: true)
        XCTAssertEqual(read[0], free, "as the JSON file has it")
    }

    // MARK: - An isolated stress test's child

    func testAChildTakesItsTrialAndAHuntsAttemptsAtItButNoOtherTrial() throws {
        let plan = try TestSupport.plan(counter)
        let runner = PlanRunner(registry: TestSupport.registry, options: RunOptions(isolation: .inProcess))
        let free = runner.selectedTrials(of: plan)[0]
        XCTAssertTrue(runner.takes(free, of: plan))
        XCTAssertTrue(runner.takes(PlanRunner.huntedSpec(free, attempt: 0, shrinkNs: nil), of: plan))
        XCTAssertTrue(runner.takes(PlanRunner.huntedSpec(free, attempt: 3, shrinkNs: nil), of: plan), "a derived seed")
        var controlled = free
        controlled.schedule = .controlled
        XCTAssertFalse(runner.takes(controlled, of: plan), "controlled, but not as a hunt runs it")
        var otherSeed = free
        otherSeed.seed &+= 1
        XCTAssertFalse(runner.takes(otherSeed, of: plan), "a free trial takes only its own seed")
    }
}
