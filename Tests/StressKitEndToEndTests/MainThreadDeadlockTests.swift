import Foundation
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The job board's `main-sync-deadlock` under controlled scheduling, where
/// the trial process's main thread is a controlled worker: a worker that
/// `sync`s to main holding the tally's lock while the main thread's block
/// waits for that lock is a `deadlock` found at once, with its cycle, in
/// every seed, and a seed replays its identical schedule.
final class MainThreadDeadlockTests: XCTestCase {
    private let id = "main-sync-deadlock/unsynchronized/t8/r0"

    /// 30 seeds (the plan's seed's 30 repetitions), each a deadlock found at
    /// once with the main thread in its cycle, under full control, and the
    /// main thread (`w8`, one past the 8 workers) picked in its schedule.
    /// Measured: every seed within 7,718 decisions but one, at 27,543 (past
    /// the default 20,000: hence the larger cap).
    func testMainSyncDeadlockIsFoundAtOnceInEverySeedWithTheMainThreadInItsCycle() throws {
        let json = try TestSupport.temporaryDirectory().appendingPathComponent("main-sync.json").path
        let run = try WorkloadTestSupport.run(TestSupport.stressbenchPath, [
            "run", "Plans/own-code.yaml", "--only", "main-sync-deadlock", "--schedule", "controlled",
            "--repetitions", "30", "--max-decisions", "100000", "--json", json, "-q",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.trials.count, 30)
        XCTAssertEqual(Set(report.trials.map(\.trial.seed)).count, 30, "30 seeds")
        for trial in report.trials {
            let what = WorkloadTestSupport.describe(trial)
            XCTAssertEqual(trial.outcome, .deadlock, what)
            let stall = try XCTUnwrap(trial.stall, what)
            XCTAssertTrue(stall.summary.contains("found at once by controlled scheduling"), stall.summary)
            let cycle = (stall.cycle ?? []).joined(separator: "; ")
            for words in ["the main thread holds the main queue and waits for the lock 'job-board.tally'",
                          "holds the lock 'job-board.tally' and waits for the main queue, held by the main thread"] {
                XCTAssertTrue(cycle.contains(words), "\(trial.trial.id): cycle \(cycle)")
            }
            let schedule = try XCTUnwrap(stall.schedule, what)
            XCTAssertEqual(schedule.controlled, .full, "\(schedule)")
            XCTAssertTrue(schedule.encoded?.contains("w8:") == true, "the main thread is picked: \(schedule.encoded ?? "")")
        }
    }

    /// The correct job board, whose runners hand the badge's refresh to the
    /// main thread with `async`, passes under control over 8 seeds (the
    /// portfolio's policies twice), under full control now that the main
    /// thread runs those blocks as a controlled worker (`w8`).
    func testTheCorrectJobBoardPassesUnderFullControlWithTheMainThreadScheduled() throws {
        let json = try TestSupport.temporaryDirectory().appendingPathComponent("correct.json").path
        let run = try WorkloadTestSupport.run(TestSupport.stressbenchPath, [
            "run", "Plans/own-code.yaml", "--only", "correct", "--schedule", "controlled", "--repetitions", "8", "--json", json, "-q",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.trials.count, 8)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            XCTAssertEqual(trial.schedule?.controlled, .full, "\(trial.trial.id): \(trial.schedule?.escapes ?? [])")
            XCTAssertTrue(trial.schedule?.encoded?.contains("w8:") == true, trial.trial.id)
        }
    }

    /// A seed's replays follow its identical schedule, and the failure's
    /// interleaving has a column for the main thread, called `main`.
    func testMainSyncDeadlockReplaysItsIdenticalScheduleAndTheTraceNamesMain() throws {
        let replay = try WorkloadTestSupport.run(TestSupport.stressbenchPath, [
            "replay", "Plans/own-code.yaml", "--only", id, "--seed", "2", "--schedule", "controlled", "--times", "5",
        ])
        let text = replay.stdout + replay.stderr
        XCTAssertTrue(text.contains("replay rate: 5/5"), text)
        XCTAssertTrue(text.contains("identical schedule: 5/5"), text)
        let run = try WorkloadTestSupport.run(TestSupport.stressbenchPath, [
            "run", "Plans/own-code.yaml", "--only", id, "--seed", "2", "--schedule", "controlled",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("interleaving (8 workers and main"), run.stdout)
        XCTAssertTrue(run.stdout.contains("| main "), run.stdout)
    }
}
