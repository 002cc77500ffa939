import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// A trial's schedule in its records: the JSON's `schedule`, the CSV's two
/// columns, and the decisions and replay command a report prints for a
/// failing controlled trial.
final class ScheduleRecordTests: XCTestCase {
    /// A violated controlled trial whose record says `schedule`.
    private func controlledFailure(_ schedule: ScheduleRecord) -> TrialResult {
        var r = Synthetic.trial(repetition: 0, opsPerSecond: 1000, latencyNs: 100, outcome: .violated)
        r.trial.schedule = .controlled
        r.schedule = schedule
        r.violations = ViolationReport(count: 1, samples: [
            ViolationSample(thread: 0, operation: "increment", step: nil, opNumber: 3, message: "lost an update"),
        ])
        return r
    }

    // MARK: - JSON

    func testAFreeTrialsRecordSaysModeFreeAndAnOldRecordHasNoSchedule() throws {
        var r = Synthetic.trial(repetition: 0, opsPerSecond: 1000, latencyNs: 100)
        r.schedule = .free
        let data = try ResultCoding.encoder().encode(r)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["schedule"] as? [String: String], ["mode": "free"])
        XCTAssertEqual(try JSONDecoder().decode(TrialResult.self, from: data), r)

        var old = object
        old.removeValue(forKey: "schedule")
        XCTAssertNil(try JSONDecoder().decode(TrialResult.self, from: JSONSerialization.data(withJSONObject: old)).schedule)
    }

    func testAControlledTrialsRecordHasItsDecisions() throws {
        let r = controlledFailure(ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .full))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: ResultCoding.encoder().encode(r)) as? [String: Any])
        let schedule = try XCTUnwrap(object["schedule"] as? [String: Any])
        XCTAssertEqual(schedule["mode"] as? String, "controlled")
        XCTAssertEqual(schedule["decisions"] as? Int, 5)
        XCTAssertEqual(schedule["encoded"] as? String, "w0:2,w1:3")
        XCTAssertEqual(schedule["controlled"] as? String, "full")
        XCTAssertEqual((object["trial"] as? [String: Any])?["schedule"] as? String, "controlled")
    }

    func testAStalledTrialTakesTheStallReportsScheduleOrSaysFree() {
        let spec = Synthetic.trial(repetition: 0, opsPerSecond: 1, latencyNs: 1).trial
        let report = StallReport(kind: .deadlock, stalledForNs: 1, workers: [], cycle: nil, summary: "deadlock")
        XCTAssertEqual(LocalTrial.stalledResult(spec, report).schedule, ScheduleRecord.free)
        var controlledSpec = spec
        controlledSpec.schedule = .controlled
        XCTAssertNil(LocalTrial.stalledResult(controlledSpec, report).schedule, "no decisions given: none made up")
        var withSchedule = report
        withSchedule.schedule = ScheduleRecord(mode: .controlled, decisions: 4, encoded: "w0:1,w1:3", controlled: .full)
        XCTAssertEqual(LocalTrial.stalledResult(controlledSpec, withSchedule).schedule, withSchedule.schedule)
    }

    // MARK: - CSV

    func testTheScheduleColumnsComeLastSoNoColumnMoves() throws {
        let columns = CSVReport.columns
        // Only the four exploration columns come after them, appended since.
        XCTAssertEqual(Array(columns.dropLast(4).suffix(3)), ["worker_cpu_ns_per_op", "schedule", "schedule_decisions"])
        XCTAssertEqual(columns.firstIndex(of: "worker_cpu_ns_per_op"), 65, "every earlier column keeps its position")

        var free = Synthetic.trial(repetition: 0, opsPerSecond: 1000, latencyNs: 100)
        free.schedule = .free
        let controlled = controlledFailure(ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .full))
        var skipped = TrialResult.failed(controlled.trial, .skipped, FailureReport(message: "not run"))
        skipped.trial.id = "e/mutex/t2/r9"
        let csv = CSVReport.render(Synthetic.report([free, controlled, skipped]))
        let rows = csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.map { Array($0.dropLast(4).suffix(2)) }, [["free", ""], ["controlled", "5"], ["controlled", ""]],
                       "a trial with no schedule record says its own mode, with no decisions")
    }

    // MARK: - Reports

    func testAFailingControlledTrialPrintsItsDecisionsAndAReplayOfItsSchedule() {
        let r = controlledFailure(ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .full))
        let rerun = RerunCommand(executable: "stressbench", launcher: ["swift", "run", "-c", "release"],
                                 options: ["--schedule", "controlled", "--max-decisions", "900"])
        let details = TableReport.details(r, planFile: "p.yaml", rerun: rerun)
        XCTAssertTrue(details.contains("\n  schedule: controlled, 5 decisions\n"), details)
        XCTAssertTrue(details.hasSuffix("\n  replay: swift run -c release stressbench replay p.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:2,w1:3 --max-decisions 900"),
                      details)
        let markdown = MarkdownReport.problemItem(r, of: Synthetic.report([r]))
        XCTAssertTrue(markdown.contains("  \n  schedule: controlled, 5 decisions  \n  replay: `stressbench replay synthetic.yaml --only e/mutex/t2/r0 --seed 1 --schedule w0:2,w1:3`\n"),
                      markdown)
    }

    func testAScheduleTooLongToPrintIsReplayedByTheSeed() {
        let long = (0..<500).map { "w\($0 % 2):\($0 + 1)" }.joined(separator: ",")
        XCTAssertGreaterThan(long.utf8.count, TrialResult.longestPrintedSchedule)
        let r = controlledFailure(ScheduleRecord(mode: .controlled, decisions: 125_250, encoded: long, controlled: .full))
        let lines = r.scheduleLines(planFile: "p.yaml", rerun: nil)
        XCTAssertEqual(lines.first, "schedule: controlled, 125250 decisions")
        XCTAssertEqual(lines.last, "replay: stressbench replay p.yaml --only e/mutex/t2/r0 --seed 1 (by the seed: the schedule's "
                       + "\(long.utf8.count) characters are too long to print; the JSON results hold it whole, as schedule.encoded)")
        let markdown = MarkdownReport.problemItem(r, of: Synthetic.report([r]))
        XCTAssertTrue(markdown.contains("replay: `stressbench replay synthetic.yaml --only e/mutex/t2/r0 --seed 1` (by the seed"), markdown)
    }

    func testPartialControlIsSaidAndAFreeTrialPrintsNothingNew() {
        let partial = controlledFailure(ScheduleRecord(mode: .controlled, decisions: 2, encoded: "w0:2", controlled: .partial,
                                                       escapes: ["worker 1 blocked outside any scheduling point"]))
        XCTAssertEqual(partial.scheduleLines(planFile: "p.yaml", rerun: nil).first,
                       "schedule: controlled, 2 decisions; partial control, so a replay may differ: worker 1 blocked outside any scheduling point")
        var free = controlledFailure(.free)
        free.trial.schedule = .free
        XCTAssertEqual(free.scheduleLines(planFile: "p.yaml", rerun: nil), [])
        XCTAssertFalse(TableReport.details(free, planFile: "p.yaml").contains("replay:"))
    }
}
