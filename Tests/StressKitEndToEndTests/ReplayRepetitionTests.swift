import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// `replay --only …/rN` of a repetition past the plan's count: the trial a
/// run with more repetitions made, with its seed and settings, and a line
/// saying so; an id that names nothing is told apart from one that names
/// a whole cell.
final class ReplayRepetitionTests: XCTestCase {
    private static let plan = """
        experiments:
          - name: counted
            workload: counter
            strategies: [pthread-mutex]
            threads: 2
            ops: 200
            warmup: 0s
            fuzz: portfolio
          - name: other
            workload: counter
            strategies: [mutex]
            threads: 1
            ops: 200
            warmup: 0s
        """

    private func writePlan() throws -> String {
        let plan = try TestSupport.temporaryDirectory().appendingPathComponent("plan.yaml").path
        try Self.plan.write(toFile: plan, atomically: true, encoding: .utf8)
        return plan
    }

    /// r3 of a one-repetition plan is the r3 of a run with --repetitions 4:
    /// same seed, and the portfolio's fourth profile (light).
    func testARepetitionPastThePlansCountIsReplayedAsTheRunThatMadeIt() throws {
        let plan = try writePlan()
        let json = URL(fileURLWithPath: plan).deletingLastPathComponent().appendingPathComponent("r.json").path
        let run = try TestSupport.cli(["run", plan, "--repetitions", "4", "--json", json, "-q"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        let made = try XCTUnwrap(report.trials.first { $0.trial.id == "counted/pthread-mutex/t2/r3" }).trial
        XCTAssertEqual(made.fuzz.profile, .light)

        for extra in [[], ["--repetitions", "2"]] {
            let replay = try TestSupport.cli(["replay", plan, "--only", "counted/pthread-mutex/t2/r3", "--times", "1"] + extra)
            XCTAssertEqual(replay.status, 1, "nothing to reproduce in a correct trial: " + replay.stdout + replay.stderr)
            XCTAssertTrue(replay.stdout.contains("replay rate: 0/1 (1 passed); trial counted/pthread-mutex/t2/r3, seed \(made.seed), fuzz light"),
                          replay.stdout + replay.stderr)
            let had = extra.isEmpty ? 1 : 2
            XCTAssertTrue(replay.stderr.contains("counted/pthread-mutex/t2 has \(had) repetition(s) here; r3 is replayed as a run with --repetitions 4 made it"),
                          replay.stderr)
        }
    }

    func testAnIdThatNamesNoTrialSaysWhatIdsThereAre() throws {
        let plan = try writePlan()
        for id in ["counted/pthread-mutex/t8/r0", "nothing", "counted/pthread-mutex/t2/rx"] {
            let replay = try TestSupport.cli(["replay", plan, "--only", id, "--times", "1"])
            XCTAssertEqual(replay.status, 2, replay.stdout + replay.stderr)
            XCTAssertTrue(replay.stderr.contains("'\(id)' matches none of this plan's trials, whose ids are experiment/strategy[/allocator]/tN/rN "
                                                 + "(cells: counted/pthread-mutex/t2, other/mutex/t1)"), replay.stderr)
        }
        let cell = try TestSupport.cli(["replay", plan, "--only", "counted/pthread-mutex/t2", "--repetitions", "2"])
        XCTAssertEqual(cell.status, 2)
        XCTAssertTrue(cell.stderr.contains("matches 2 (counted/pthread-mutex/t2/r0, counted/pthread-mutex/t2/r1): add /rN to pick a repetition"), cell.stderr)
    }
}
