import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A free-running failure's hunt under control: which failures are offered
/// the command, what it says, how a hunt's attempts are made and matched,
/// and how its record and the trace it found are written.
final class HuntTests: XCTestCase {
    private let runner = PlanRunner(registry: TestSupport.registry)

    /// A free-running lost update of the counter under `strategy`.
    private func freeFailure(strategy: String = "unsynchronized", outcome: TrialOutcome = .violated) -> TrialResult {
        var r = Synthetic.trial(experiment: "counter-lost-update", strategy: strategy, repetition: 0, opsPerSecond: 1, latencyNs: 1,
                                outcome: outcome)
        r.schedule = .free
        r.violations = ViolationReport(count: 1, samples: [
            ViolationSample(thread: nil, operation: "final", step: nil, opNumber: nil, message: "final count 6 != 15 increments done (9 lost)"),
        ])
        return r
    }

    // MARK: - The offer

    func testAFreeViolationPrintsTheHuntCommandRightAfterItsRerunLine() throws {
        var r = freeFailure()
        r.huntCommand = runner.huntCommand(for: r, planFile: "Plans/bugs.yaml")
        XCTAssertEqual(r.huntCommand, "stressbench run Plans/bugs.yaml --only counter-lost-update/unsynchronized/t2 "
                       + "--schedule controlled --fuzz yield --repetitions 10")
        let lines = TableReport.details(r, planFile: "Plans/bugs.yaml").components(separatedBy: "\n")
        let rerun = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  rerun: ") }, "\(lines)")
        XCTAssertEqual(lines[rerun + 1], "  hunt under control: " + (r.huntCommand ?? ""))
        let item = MarkdownReport.problemItem(r, of: Synthetic.report([r], plan: "Plans/bugs"))
        XCTAssertTrue(item.contains("  \n  hunt under control: `\(r.huntCommand ?? "")`"), item)
    }

    func testADeadlockAndAHangAreOfferedTooButNotACrashAnErrorOrATimeout() {
        for outcome in [TrialOutcome.deadlock, .hang] {
            XCTAssertNotNil(runner.huntCommand(for: freeFailure(outcome: outcome), planFile: "p.yaml"), "\(outcome)")
        }
        for outcome in [TrialOutcome.crashed, .error, .timeout, .skipped, .passed] {
            XCTAssertNil(runner.huntCommand(for: freeFailure(outcome: outcome), planFile: "p.yaml"), "\(outcome)")
        }
    }

    func testNoOfferWhereControlCannotRunTheTrialOrAlreadyDid() {
        var controlled = freeFailure()
        controlled.trial.schedule = .controlled
        XCTAssertNil(runner.huntCommand(for: controlled, planFile: "p.yaml"), "a controlled failure has its own trace")
        XCTAssertNil(runner.huntCommand(for: freeFailure(strategy: "actor"), planFile: "p.yaml"), "tasks: no controlled schedule")
        XCTAssertNotNil(runner.huntCommand(for: freeFailure(strategy: "serial-queue-async"), planFile: "p.yaml"),
                        "its async blocks run on the schedule's queue workers")
        var paced = freeFailure()
        paced.trial.load.mode = .paced
        XCTAssertNil(runner.huntCommand(for: paced, planFile: "p.yaml"), "paced by the wall clock")
        XCTAssertNil(runner.huntCommand(for: freeFailure(strategy: "no-such-strategy"), planFile: "p.yaml"))
        let lines = TableReport.details(freeFailure(strategy: "actor"), planFile: "p.yaml")
        XCTAssertFalse(lines.contains("hunt"), lines)
    }

    func testTheHuntCommandSetsItsOwnScheduleFuzzAndRepetitionsAndKeepsShrinking() {
        let rerun = RerunCommand(executable: "stressbench", options: ["--repetitions", "3", "--duration", "1s", "--fuzz", "chaos",
                                                                      "--schedule", "free", "--no-shrink", "--stop-on-violation"])
        XCTAssertEqual(rerun.hunt(freeFailure().trial, planFile: "p.yaml"),
                       "stressbench run p.yaml --only counter-lost-update/unsynchronized/t2 --duration 1s --stop-on-violation "
                       + "--schedule controlled --fuzz yield --repetitions 10")
        var found = freeFailure().trial
        found.seed = 77
        XCTAssertEqual(rerun.huntedTrial(found, planFile: "p.yaml"),
                       "stressbench run p.yaml --only counter-lost-update/unsynchronized/t2/r0 --seed 77 --duration 1s "
                       + "--stop-on-violation --schedule controlled --fuzz yield")
    }

    // MARK: - The hunt's attempts

    func testAttemptsRunTheSameCellControlledFromTheFailingSeedOn() {
        let free = freeFailure().trial
        let first = PlanRunner.huntedSpec(free, attempt: 0, shrinkNs: 0)
        XCTAssertEqual(first.id, free.id)
        XCTAssertEqual(first.seed, free.seed)
        XCTAssertEqual(first.schedule, .controlled)
        XCTAssertEqual(first.fuzz.profile, .yield)
        XCTAssertTrue(first.stopOnViolation)
        XCTAssertEqual(first.shrinkBudgetNs, PlanDefaults.shrinkNs, "--no-shrink does not turn a hunt's shrinking off")
        XCTAssertEqual(PlanRunner.huntedSpec(free, attempt: 0, shrinkNs: 2_000_000_000).shrinkBudgetNs, 2_000_000_000)
        let seeds = (1...20).map { PlanRunner.huntedSpec(free, attempt: $0, shrinkNs: nil).seed }
        XCTAssertEqual(Set(seeds + [free.seed]).count, 21, "every attempt a seed of its own")
        XCTAssertTrue(seeds.allSatisfy { $0 < TrialMatrix.seedLimit })
        XCTAssertEqual(seeds, (1...20).map { PlanRunner.huntedSpec(free, attempt: $0, shrinkNs: nil).seed }, "derived, not drawn")
        XCTAssertGreaterThanOrEqual(first.timeoutNanoseconds, Int(PlanDefaults.shrinkNs), "its timeout covers its shrinking")
    }

    func testTheSameFailureIsTheSameOutcomeAndFirstMessageNumbersAside() {
        let free = freeFailure()
        var controlled = freeFailure()
        controlled.trial.schedule = .controlled
        controlled.violations = ViolationReport(count: 1, samples: [
            ViolationSample(thread: nil, operation: "final", step: nil, opNumber: nil, message: "final count 1 != 2 increments done (1 lost)"),
        ])
        XCTAssertTrue(HuntRecord.sameFailure(free, controlled))
        controlled.violations.samples[0].message = "no overdraft: account 1 at -3"
        XCTAssertFalse(HuntRecord.sameFailure(free, controlled), "another invariant")
        controlled.outcome = .deadlock
        XCTAssertFalse(HuntRecord.sameFailure(free, controlled), "another outcome")
        XCTAssertTrue(HuntRecord.sameFailure(freeFailure(outcome: .deadlock), controlled), "a deadlock is a deadlock")
        XCTAssertFalse(HuntRecord.sameFailure(free, freeFailure(outcome: .passed)))
    }

    // MARK: - The record and the report

    /// `free` after a hunt that found the counter's lost update, seed 7.
    private func hunted(_ free: TrialResult) -> TrialResult {
        var found = TraceFixtures.lostUpdateResult()
        found.trial.seed = 7
        var r = free
        r.huntCommand = runner.huntCommand(for: r, planFile: "synthetic.yaml")
        r.hunt = HuntRecord(found: true, attempts: 2, seconds: 1.46, seed: 7, trial: "stressbench run synthetic.yaml --only x --seed 7",
                            result: found)
        return r
    }

    func testAHuntsRecordHoldsTheFoundTrialAsOneObjectAndReadsBack() throws {
        let r = hunted(freeFailure())
        let data = try ResultCoding.encoder().encode(r)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let hunt = try XCTUnwrap(object["hunt"] as? [String: Any])
        XCTAssertEqual(Set(hunt.keys), ["found", "attempts", "seconds", "seed", "trial", "result"])
        XCTAssertEqual(hunt["found"] as? Bool, true)
        XCTAssertEqual(hunt["attempts"] as? Int, 2)
        XCTAssertEqual(hunt["seed"] as? Int, 7)
        let result = try XCTUnwrap(hunt["result"] as? [String: Any])
        XCTAssertNotNil(result["trace"] as? [Any])
        XCTAssertNotNil(result["shrink"] as? [String: Any])
        XCTAssertEqual(object["huntCommand"] as? String, r.huntCommand)
        XCTAssertEqual(try JSONDecoder().decode(TrialResult.self, from: data), r)

        let missed = HuntRecord(found: false, attempts: 5, seconds: 10, seed: nil, trial: "hunt on", result: nil)
        let missedObject = try XCTUnwrap(JSONSerialization.jsonObject(with: ResultCoding.encoder().encode(missed)) as? [String: Any])
        XCTAssertEqual(Set(missedObject.keys), ["found", "attempts", "seconds", "trial"])
    }

    func testAFoundHuntDrawsItsTraceUnderTheFreeFailureWithItsReplayLine() {
        let r = hunted(freeFailure())
        let text = TableReport.render(Synthetic.report([r]))
        XCTAssertTrue(text.contains("""
              hunt under control: stressbench run synthetic.yaml --only counter-lost-update/unsynchronized/t2 --schedule controlled --fuzz yield --repetitions 10
              found under control (seed 7; 2 controlled trial(s), 1.5 s):
                violated: after the run, final: final count 1 != 2 increments done
                schedule: controlled, 6 decisions
                interleaving (2 workers, 1 preemption; shrunk from 4,812 events):
            """), text)
        XCTAssertTrue(text.contains("    replay: stressbench replay synthetic.yaml --only counter-lost-update/unsynchronized/t2/r0 --seed 7 "
                                    + "--schedule w0:2,w1:3,w0:1 --fuzz yield\n"), text)
        let markdown = MarkdownReport.render(Synthetic.report([r]))
        XCTAssertTrue(markdown.contains("found under control (seed 7; 2 controlled trial(s), 1.5 s)"), markdown)
        XCTAssertTrue(markdown.contains("  ```text\n  interleaving (2 workers, 1 preemption; shrunk from 4,812 events):"), markdown)
    }

    func testOnlyTheFirstFoundHuntIsDrawnAndAMissSaysSo() {
        var second = hunted(freeFailure(strategy: "mutex"))
        second.trial.id = "counter-lost-update/mutex/t2/r0"
        var missed = freeFailure(strategy: "nslock")
        missed.trial.id = "counter-lost-update/nslock/t2/r0"
        missed.huntCommand = "hunt on"
        missed.hunt = HuntRecord(found: false, attempts: 3, seconds: 10.04, seed: nil, trial: "hunt on", result: nil)
        let text = TableReport.render(Synthetic.report([hunted(freeFailure()), second, missed]))
        XCTAssertEqual(text.components(separatedBy: "interleaving (").count - 1, 1, text)
        XCTAssertTrue(text.contains("    trace: 11 events, 1 preemption, in the JSON results"), text)
        XCTAssertTrue(text.contains("  hunted under control: not found in 3 controlled trial(s), 10.0 s; the command above hunts on"), text)
    }
}
