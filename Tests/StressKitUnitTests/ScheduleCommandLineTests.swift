import ArgumentParser
@testable import StressBenchCLI
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// `--schedule` and `--max-decisions` as `run` and `replay` read them, the
/// refusal of a controlled schedule where it cannot work, the text form of a
/// schedule, and replay's count of identical schedules.
final class ScheduleCommandLineTests: XCTestCase {
    // MARK: - The options

    func testTheOptionsReachTheRunOptionsAndTheRerunCommand() throws {
        let overrides = try TrialOverrides.parse(["--schedule", "controlled", "--max-decisions", "5000"])
        var options = RunOptions()
        overrides.apply(to: &options)
        XCTAssertEqual(options.schedule, .controlled)
        XCTAssertEqual(options.maxDecisions, 5_000)
        XCTAssertNil(options.forcedSchedule)
        XCTAssertEqual(options.rerun.options, ["--schedule", "controlled", "--max-decisions", "5000"])

        var free = RunOptions()
        try TrialOverrides.parse(["--schedule", "free"]).apply(to: &free)
        XCTAssertEqual(free.schedule, .free)
        var none = RunOptions()
        try TrialOverrides.parse([]).apply(to: &none)
        XCTAssertNil(none.schedule)
        XCTAssertNil(none.maxDecisions)
    }

    func testARecordedScheduleIsForReplay() throws {
        let overrides = try TrialOverrides.parse(["--schedule", "w0:2,w1:3"])
        XCTAssertNil(overrides.scheduleMode)
        XCTAssertEqual(overrides.recordedSchedule, "w0:2,w1:3")
        var options = RunOptions()
        overrides.apply(to: &options)
        XCTAssertEqual(options.forcedSchedule, "w0:2,w1:3")
        XCTAssertNil(options.schedule)
        XCTAssertThrowsError(try RunCommand.parse(["plan.yaml", "--schedule", "w0:2,w1:3"])) { error in
            XCTAssertTrue(RunCommand.message(for: error).contains("run's --schedule takes free or controlled"), RunCommand.message(for: error))
        }
        XCTAssertNoThrow(try ReplayCommand.parse(["plan.yaml", "--only", "x/y/t2/r0", "--schedule", "w0:2,w1:3"]))
    }

    func testBadValuesAreUsageErrors() {
        let cases: [([String], String)] = [
            (["--schedule", "contolled"], "--schedule expects free or controlled (replay also takes a recorded schedule such as w0:2,w1:3), got 'contolled'"),
            (["--schedule", "w0:2,w1"], "--schedule: run 2 of the schedule, 'w1', is not w<worker>:<count>"),
            (["--max-decisions", "0"], "--max-decisions expects a number from 1 to 100000000, got 0"),
            (["--max-decisions", "100000001"], "--max-decisions expects a number from 1 to 100000000, got 100000001"),
        ]
        for (arguments, expected) in cases {
            XCTAssertThrowsError(try TrialOverrides.parse(arguments), "\(arguments)") { error in
                let message = TrialOverrides.message(for: error)
                XCTAssertTrue(message.hasPrefix(expected), "\(arguments): \(message)")
                XCTAssertEqual(TrialOverrides.exitCode(for: error).rawValue, 64, "ArgumentParser's usage code, which main maps to 2")
            }
        }
    }

    func testTheHelpSaysWhatControlledMeans() {
        let help = TrialOverrides.helpMessage(columns: 10_000)
        XCTAssertTrue(help.contains("--schedule <mode>"), help)
        XCTAssertTrue(help.contains("controlled (one thread worker at a time, the seed choosing every switch"), help)
        XCTAssertTrue(help.contains("--max-decisions <n>"), help)
    }

    // MARK: - Refusing --schedule controlled where it cannot work

    func testControlledOnTheCommandLineIsRefusedForTrialsItCannotRun() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex, actor]
                threads: 2
            """)
        var options = RunOptions(isolation: .inProcess)
        options.schedule = .controlled
        let runner = PlanRunner(registry: TestSupport.registry, options: options)
        let trials = runner.selectedTrials(of: plan)
        XCTAssertEqual(trials.map(\.schedule), [.controlled, .controlled])
        let problem = try XCTUnwrap(runner.scheduleProblem(trials))
        XCTAssertTrue(problem.hasPrefix("--schedule controlled cannot run trial counter/actor/t2/r0: strategy 'actor': its workers are tasks"), problem)
        XCTAssertTrue(problem.contains("--only"), problem)
        XCTAssertNil(runner.scheduleProblem(trials.filter { $0.strategy == "mutex" }))
        XCTAssertThrowsError(try runner.run(plan)) { XCTAssertEqual("\($0)", problem) }

        var free = options
        free.schedule = nil
        XCTAssertNil(PlanRunner(registry: TestSupport.registry, options: free).scheduleProblem(trials),
                     "only an override is checked here: the plan loader refuses the plan's own")
    }

    func testEveryKindOfUncontrollableTrialIsRefused() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - name: paced
                workload: counter
                strategies: [mutex]
                threads: 1
                load: { mode: paced, rate: 1k }
              - name: sb
                scenario: store-buffering
                strategies: [unsynchronized]
              - name: tasks
                workload: counter
                strategies: [actor]
                threads: 1
            """)
        var options = RunOptions(isolation: .inProcess)
        options.forcedSchedule = "w0:1"
        let runner = PlanRunner(registry: TestSupport.registry, options: options)
        let trials = runner.selectedTrials(of: plan)
        XCTAssertEqual(trials.map(\.forcedSchedule), ["w0:1", "w0:1", "w0:1"])
        XCTAssertEqual(trials.map(\.schedule), [.controlled, .controlled, .controlled], "a recorded schedule makes the trial controlled")
        let reasons = trials.map { ControlledScheduleLimits.problem(of: $0, registry: TestSupport.registry) ?? "" }
        XCTAssertTrue(reasons[0].hasPrefix("a paced load"), reasons[0])
        XCTAssertTrue(reasons[1].hasPrefix("scenario 'store-buffering' is a memory-model litmus test"), reasons[1])
        XCTAssertTrue(reasons[2].hasPrefix("strategy 'actor': its workers are tasks"), reasons[2])
        let problem = try XCTUnwrap(runner.scheduleProblem(trials))
        XCTAssertTrue(problem.hasPrefix("a recorded schedule (--schedule) makes a controlled trial, which cannot run trial paced/mutex/t1/r0 "
                                        + "(and 2 more of the 3 selected trials)"), problem)
    }

    func testMaxDecisionsAppliesToControlledTrialsOnly() throws {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
              - name: controlled
                workload: counter
                strategies: [mutex]
                threads: 2
                schedule: controlled
            """)
        var options = RunOptions(isolation: .inProcess)
        options.maxDecisions = 42
        let trials = PlanRunner(registry: TestSupport.registry, options: options).selectedTrials(of: plan)
        XCTAssertEqual(trials.map(\.maxDecisionsGiven), [nil, 42])
        options.schedule = .free
        let freed = PlanRunner(registry: TestSupport.registry, options: options).selectedTrials(of: plan)
        XCTAssertEqual(freed.map(\.schedule), [.free, .free], "--schedule free overrides the plan's controlled")
        XCTAssertEqual(freed.map(\.maxDecisionsGiven), [nil, nil])
    }

    // MARK: - The text form of a schedule

    func testEncodingRoundTrips() throws {
        let runs: [(worker: Int, count: Int)] = [(0, 2), (1, 3), (0, 1)]
        let text = ScheduleEncoding.encode(runs)
        XCTAssertEqual(text, "w0:2,w1:3,w0:1")
        XCTAssertEqual(try ScheduleEncoding.decode(text, workers: 2), [0, 0, 1, 1, 1, 0])
        XCTAssertEqual(try ScheduleEncoding.decode(" w0:2 , w1:3,w0:1 "), [0, 0, 1, 1, 1, 0], "spaces around runs are ignored")
        XCTAssertEqual(try ScheduleEncoding.decode(""), [])
        XCTAssertEqual(ScheduleEncoding.encode([]), "")
    }

    /// The byte-wise encoder writes what interpolation wrote, and the
    /// byte-wise reader (the fast path of `decode`) reads every text exactly
    /// as the run-by-run reader does: the same decisions, or no answer where
    /// that one has an error or spaces to trim. Random texts near the
    /// grammar: valid ones, and ones with one byte changed, dropped or added.
    func testTheByteWiseEncodingAgreesWithTheRunByRunOne() throws {
        var random = SplitMix64(seed: 42)
        func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let alphabet = Array("w0123456789:, -+x".utf8)
        var fastReads = 0
        for round in 0..<1000 {
            let runs = (0..<(1 + draw(6))).map { _ in
                (worker: draw(4) == 0 ? draw(1_000_000) : draw(12), count: draw(4) == 0 ? 1 + draw(999) : 1 + draw(9))
            }
            let text = ScheduleEncoding.encode(runs)
            XCTAssertEqual(text, runs.map { "w\($0.worker):\($0.count)" }.joined(separator: ","))
            var bytes = Array(text.utf8)
            switch round % 4 {
            case 0: break
            case 1: bytes[draw(bytes.count)] = alphabet[draw(alphabet.count)]
            case 2: bytes.remove(at: draw(bytes.count))
            default: bytes.insert(alphabet[draw(alphabet.count)], at: draw(bytes.count + 1))
            }
            let mutated = String(decoding: bytes, as: UTF8.self)
            for workers in [nil, 2, 11] {
                let slow = Result { () throws(ScheduleEncoding.ParseError) in try ScheduleEncoding.decodeRunByRun(mutated, workers: workers) }
                if let fast = ScheduleEncoding.decodeWritten(mutated, workers: workers) {
                    fastReads += 1
                    XCTAssertEqual(fast, try slow.get(), "\(mutated) with \(workers.map(String.init) ?? "any") workers")
                }
                let decoded = Result { () throws(ScheduleEncoding.ParseError) in try ScheduleEncoding.decode(mutated, workers: workers) }
                XCTAssertEqual(decoded, slow, mutated)
            }
        }
        XCTAssertGreaterThan(fastReads, 700, "the texts the fast reader answers for: the unchanged ones within the bound, and some mutated ones")
        XCTAssertEqual(ScheduleEncoding.encode([(worker: -3, count: Int.min), (worker: 0, count: Int.max)]),
                       "w-3:\(Int.min),w0:\(Int.max)", "any Int is written as String(_:) writes it")
        XCTAssertNil(ScheduleEncoding.decodeWritten("w0:1,w1:é"), "anything but ASCII w, digits, : and , is for the run-by-run reader")
        XCTAssertNil(ScheduleEncoding.decodeWritten("w0:99999999,w1:2"), "one decision past the limit")
        XCTAssertNil(ScheduleEncoding.decodeWritten("w0:1, w1:1"), "spaces are for the run-by-run reader")
        XCTAssertNil(ScheduleEncoding.decodeWritten("w0:99999999999999999999"), "no overflow: the run-by-run reader says what is wrong")
        XCTAssertNil(ScheduleEncoding.decodeWritten("w0:1,"))
    }

    func testAScheduleMayNameTheMainThreadAndTheQueueWorkersAfterIt() throws {
        // Two workers: w2 is the main thread, w3 to w10 the queue workers; w11 is none.
        XCTAssertEqual(try ScheduleEncoding.decode("w0:1,w2:1,w3:1,w10:1", workers: 2), [0, 2, 3, 10])
        XCTAssertThrowsError(try ScheduleEncoding.decode("w0:1,w11:1", workers: 2))
    }

    func testEveryParseErrorSaysWhichRunIsWrong() {
        let cases: [(String, Int?, String)] = [
            ("x", nil, "run 1 of the schedule, 'x', is not w<worker>:<count>"),
            ("w0", nil, "run 1 of the schedule, 'w0', is not w<worker>:<count>"),
            ("w0:2,w1:0", nil, "run 2 of the schedule, 'w1:0', is not w<worker>:<count>"),
            ("w0:2,,w1:1", nil, "run 2 of the schedule, '', is not w<worker>:<count>"),
            ("w-1:2", nil, "run 1 of the schedule, 'w-1:2', is not w<worker>:<count>"),
            ("wa:2", nil, "run 1 of the schedule, 'wa:2', is not w<worker>:<count>"),
            ("0:2", nil, "run 1 of the schedule, '0:2', is not w<worker>:<count>"),
            ("w0:1:2", nil, "run 1 of the schedule, 'w0:1:2', is not w<worker>:<count>"),
            ("w0:1,w11:1", 2, "run 2 of the schedule, 'w11:1', names worker 11, but the trial has 2 worker(s) (w0 to w1), the main thread (w2) "
             + "and 8 queue workers (w3 to w10)"),
            ("w0:100000001", nil, "the schedule has more than 100,000,000 decisions"),
        ]
        for (text, workers, expected) in cases {
            XCTAssertThrowsError(try ScheduleEncoding.decode(text, workers: workers), text) { error in
                XCTAssertTrue((error as? ScheduleEncoding.ParseError)?.description.hasPrefix(expected) == true, "\(text): \(error)")
            }
        }
    }

    // MARK: - replay's identical schedules

    func testTheFirstRerunIsTheReferenceWhenNoScheduleIsGiven() {
        var count = IdenticalSchedules()
        count.add(ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .full))
        count.add(ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .full))
        count.add(ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w1:2,w0:3", controlled: .partial))
        XCTAssertEqual(count.summary, "identical schedule: 2/3")
        XCTAssertEqual(count.reference, "w0:2,w1:3")
    }

    func testAGivenScheduleIsTheReferenceSoTheFirstRerunMayDiffer() {
        var count = IdenticalSchedules(given: "w0:1, w0:1,w1:3")
        count.add(ScheduleRecord(mode: .controlled, decisions: 6, encoded: "w0:2,w1:3,w0:1", controlled: .full))
        count.add(ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .full))
        XCTAssertEqual(count.summary, "identical schedule: 1/2", "the same decisions written another way are identical")
    }

    func testARerunWithoutAScheduleIsNotIdenticalAndDoesNotSetTheReference() {
        var count = IdenticalSchedules()
        count.add(nil)
        count.add(ScheduleRecord(mode: .controlled))
        count.add(ScheduleRecord(mode: .controlled, decisions: 1, encoded: "w1:1", controlled: .full))
        count.add(ScheduleRecord(mode: .controlled, decisions: 1, encoded: "w1:1", controlled: .full))
        XCTAssertEqual(count.summary,
                       "identical schedule: 2/4 (2 recorded none: the trial process died before it could report its schedule)")
        XCTAssertEqual(count.reference, "w1:1")
    }

    func testCanonicalFormJoinsRunsAndLeavesOtherTextAlone() {
        XCTAssertEqual(IdenticalSchedules.canonical("w0:1,w0:1, w1:2"), "w0:2,w1:2")
        XCTAssertEqual(IdenticalSchedules.canonical(""), "")
        XCTAssertEqual(IdenticalSchedules.canonical("not a schedule"), "not a schedule")
        XCTAssertEqual(IdenticalSchedules.canonical("w0:\(Int.max),w0:1"), "w0:\(Int.max),w0:1", "an overflow is left as it is")
    }
}
