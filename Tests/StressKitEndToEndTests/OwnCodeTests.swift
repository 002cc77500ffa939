import Dispatch
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import Synchronization
import XCTest

/// Testing a team's own code (docs/own-code.md): the job board of
/// Examples/OwnCode with one injected bug per primitive, the ledger of plain
/// NSLocks seen through the interposer, the strategies that use a main
/// thread, and the harness-aware primitives outside a trial.
final class OwnCodeTests: XCTestCase {
    func testListShowsTheMainThreadAndPrimitiveStrategiesAndTheExamples() throws {
        let list = try TestSupport.cli(["list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        for name in ["main-queue", "main-actor", "semaphore", "condition", "job-board", "image-store", "ledger"] {
            XCTAssertTrue(list.stdout.contains("  \(name)"), "`stressbench list` does not show \(name):\n\(list.stdout)")
        }
    }

    /// Every variant of Plans/own-code.yaml ends as its comment says, with
    /// the plan's fixed seeds (each bug was found by 30 of 30 seeds when
    /// measured with scripts/detection-rates.sh, and the correct versions
    /// never raised an alarm: see docs/own-code.md).
    func testOwnCodePlanFindsEachInjectedBugAndPassesTheCorrectCode() throws {
        let dir = try TestSupport.temporaryDirectory()
        let json = dir.appendingPathComponent("own-code.json").path
        let run = try WorkloadTestSupport.run(TestSupport.stressbenchPath, ["run", "Plans/own-code.yaml", "--json", json, "-q"])
        XCTAssertEqual(run.status, 0, "every bug caught, as the plan expects: " + run.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        var byExperiment: [String: [TrialResult]] = [:]
        for trial in report.trials { byExperiment[trial.trial.experiment, default: []].append(trial) }

        let ledgers = ["ledger", "ledger-recursive-lock", "ledger-rwlock", "ledger-lock-and-condition"]
        for name in ["correct", "image-store-correct"] + ledgers.map({ "\($0)-correct" }) {
            XCTAssertFalse((byExperiment[name] ?? []).isEmpty, "no trial of \(name)")
            for trial in byExperiment[name] ?? [] {
                XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            }
        }
        XCTAssertEqual(byExperiment["correct"]?.count, 4)
        XCTAssertEqual(byExperiment["image-store-correct"]?.count, 4)

        func first(_ experiment: String) throws -> TrialResult { try XCTUnwrap(byExperiment[experiment]?.first, experiment) }
        func message(_ trial: TrialResult) -> String { trial.violations.samples.first?.message ?? "" }

        let lost = try first("lost-update")
        XCTAssertEqual(lost.outcome, .violated, WorkloadTestSupport.describe(lost))
        XCTAssertTrue(message(lost).contains("the board's tally says"), message(lost))

        let ifNotWhile = try first("if-not-while")
        XCTAssertEqual(ifNotWhile.outcome, .violated, WorkloadTestSupport.describe(ifNotWhile))
        // Two jobs in the one slot show to the runner that saw them, or to a
        // status read made while they ran, whichever came first.
        XCTAssertTrue(message(ifNotWhile).contains("jobs ran at once on a board with 1 slot(s)")
                      || message(ifNotWhile).hasPrefix("status shows ") && message(ifNotWhile).hasSuffix("slots busy of 1"),
                      message(ifNotWhile))

        let offMain = try first("off-main")
        XCTAssertEqual(offMain.outcome, .violated, WorkloadTestSupport.describe(offMain))
        XCTAssertTrue(message(offMain).contains("confinement: the badge was touched from another thread, not from the main thread"),
                      message(offMain))

        for (experiment, queue) in [("sync-onto-own-queue", "job-board.jobs"), ("image-store-sync-on-work-queue", "image-store.work"),
                                    ("image-store-read-inside-barrier", "image-store.cache")] {
            let crashed = try first(experiment)
            XCTAssertEqual(crashed.outcome, .crashed, WorkloadTestSupport.describe(crashed))
            XCTAssertTrue(crashed.failure?.message.contains(
                "Fatal error: StressQueue '\(queue)': sync onto a queue this thread is already running on") == true,
                "\(experiment): \(crashed.failure?.message ?? "no failure")")
        }

        let storeLost = try first("image-store-lost-update")
        XCTAssertEqual(storeLost.outcome, .violated, WorkloadTestSupport.describe(storeLost))
        XCTAssertTrue(message(storeLost).contains("the store counted"), message(storeLost))

        for (experiment, cycleWords) in [
            ("lock-order", ["the lock of condition 'job-board.slots'", "the lock 'job-board.tally'"]),
            ("main-sync-deadlock", ["the main queue", "the main thread", "the lock 'job-board.tally'"]),
            // Named by the ledger (PrimitiveNames.name), or else by what
            // each is and where the code first took it; never by address.
            ("ledger-lock-order", ["the lock 'ledger.cash'", "the lock 'ledger.sales'"]),
            ("ledger-recursive-lock-lock-order", ["the recursive mutex first taken at "]),
            ("ledger-rwlock-lock-order", ["the read-write lock first taken at "]),
            ("ledger-lock-and-condition-lock-order", [" first taken at "]),
            // A condition wait that only a blocked worker could signal.
            ("wait-holding-lock", ["holds the lock 'job-board.tally' and waits for a signal on the condition 'job-board.slots'",
                                   "all stuck, could send"]),
            // A sync to a queue whose running block waits for the caller's lock.
            ("queue-lock-order", ["the queue 'job-board.jobs'", "the lock 'job-board.tally'"]),
            ("image-store-semaphore-order", ["the semaphore 'image-store.disk'", "the semaphore 'image-store.index'"]),
            ("image-store-once-reentry", ["holds the once-token 'image-store.configuration'", "held by itself"]),
        ] {
            let trial = try first(experiment)
            XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
            XCTAssertEqual(trial.stall?.kind, .deadlock)
            let cycle = trial.stall?.cycle ?? []
            XCTAssertFalse(cycle.isEmpty, "\(experiment): no wait-for cycle")
            for words in cycleWords {
                XCTAssertTrue(cycle.joined(separator: "; ").contains(words), "\(experiment): cycle \(cycle) does not name \(words)")
            }
            XCTAssertFalse(trial.stall?.summary.contains("0x") ?? true, "\(experiment): an address in \(trial.stall?.summary ?? "")")
        }
        // The main thread takes part in main-sync-deadlock: it is called the
        // main thread, not a numbered worker.
        let mainSync = try first("main-sync-deadlock")
        let main = try XCTUnwrap(mainSync.stall?.workers.first { $0.participant != nil }, "\(mainSync.stall?.workers ?? [])")
        XCTAssertEqual(main.participant, "the main thread")
        XCTAssertEqual(main.name, "the main thread")
        XCTAssertFalse(main.description.hasPrefix("the main thread"), main.description)
        for ledger in ledgers {
            XCTAssertEqual(report.trials.first { $0.trial.experiment == "\(ledger)-lock-order" }?.trial.interpose, true, ledger)
        }
        // Two maintenance workers deadlock while the other six go on: a
        // partial deadlock among the code's own primitives.
        let partial = try first("image-store-semaphore-order")
        XCTAssertEqual(partial.stall?.partial, true, partial.stall?.summary ?? "no stall")
        XCTAssertTrue(partial.stall?.summary.contains("while 6 other worker(s) went on") == true, partial.stall?.summary ?? "")
    }

    /// The same plan under controlled scheduling: every expectation holds,
    /// the deadlocks the model can see (the wrappers' and the interposed
    /// NSLocks', rwlocks' and conditions') are reported at once with their
    /// schedule, and a deadlock replays its identical schedule.
    func testOwnCodePlanUnderControlledScheduling() throws {
        let dir = try TestSupport.temporaryDirectory()
        let json = dir.appendingPathComponent("own-code-controlled.json").path
        let run = try WorkloadTestSupport.run(TestSupport.stressbenchPath,
                                              ["run", "Plans/own-code.yaml", "--schedule", "controlled", "--json", json, "-q"])
        XCTAssertEqual(run.status, 0, "every expectation holds under control: " + run.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        XCTAssertEqual(report.trials.count, 29)
        for trial in report.trials where trial.outcome != .crashed {
            XCTAssertEqual(trial.schedule?.mode ?? trial.stall?.schedule?.mode, .controlled, WorkloadTestSupport.describe(trial))
        }
        // The semaphores' cycle among them: found once the trial stopped
        // and the six other workers ended, by the scheduler, not the watchdog.
        for experiment in ["lock-order", "wait-holding-lock", "queue-lock-order", "image-store-once-reentry", "ledger-lock-order",
                           "ledger-recursive-lock-lock-order", "ledger-rwlock-lock-order", "ledger-lock-and-condition-lock-order",
                           "image-store-semaphore-order"] {
            let trial = try XCTUnwrap(report.trials.first { $0.trial.experiment == experiment }, experiment)
            XCTAssertEqual(trial.outcome, .deadlock, WorkloadTestSupport.describe(trial))
            XCTAssertTrue(trial.stall?.summary.contains("found at once by controlled scheduling") == true, trial.stall?.summary ?? experiment)
            XCTAssertNotNil(trial.stall?.cycle, experiment)
            XCTAssertEqual(trial.schedule?.controlled, .full, experiment)
        }
        let deadlock = try XCTUnwrap(report.trials.first { $0.trial.experiment == "ledger-lock-order" })
        let replay = try WorkloadTestSupport.run(TestSupport.stressbenchPath, [
            "replay", "Plans/own-code.yaml", "--only", deadlock.trial.id, "--seed", String(deadlock.trial.seed),
            "--schedule", "controlled", "--times", "3",
        ])
        XCTAssertTrue(replay.stdout.contains("identical schedule: 3/3") || replay.stderr.contains("identical schedule: 3/3"),
                      replay.stdout + replay.stderr)
        // The image store's once-token and semaphores stay under control
        // (a waiter of the once-token used to wait for it in the kernel).
        for trial in report.trials where trial.trial.experiment.hasPrefix("image-store") && trial.outcome != .crashed {
            XCTAssertEqual(trial.schedule?.controlled ?? trial.stall?.schedule?.controlled, .full,
                           "\(trial.trial.id): \(trial.schedule?.escapes ?? trial.stall?.schedule?.escapes ?? [])")
        }
        // The semaphores' deadlock says the same on every replay (its
        // message was the watchdog's, with how long it had waited).
        let semaphores = try XCTUnwrap(report.trials.first { $0.trial.experiment == "image-store-semaphore-order" })
        let again = try WorkloadTestSupport.run(TestSupport.stressbenchPath, [
            "replay", "Plans/own-code.yaml", "--only", semaphores.trial.id, "--seed", String(semaphores.trial.seed),
            "--schedule", "controlled", "--times", "3",
        ])
        let said = again.stdout + again.stderr
        XCTAssertTrue(said.contains("identical schedule: 3/3") && said.contains("every reproduction failed with the same first message"),
                      said)
    }

    func testPrimitivesOutsideATrialBehaveLikeWhatTheyWrap() {
        let lock = StressLock(name: "outside")
        lock.lock()
        XCTAssertFalse(lock.try(), "a held lock is not free")
        lock.unlock()
        XCTAssertTrue(lock.try())
        lock.unlock()
        XCTAssertEqual(lock.withLock { 7 }, 7)

        let condition = StressCondition()
        let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000
        condition.lock()
        // Nobody signals, but a condition may wake without a signal: the loop
        // ends when a wait returns false, at its deadline.
        while condition.wait(untilNanoseconds: deadline) {}
        condition.unlock()

        let queue = StressQueue(label: "outside.serial")
        XCTAssertEqual(queue.sync { 42 }, 42)
        let concurrent = StressQueue(label: "outside.concurrent", attributes: .concurrent)
        let group = DispatchGroup()
        let counter = StressMutex(0)
        for _ in 0..<100 { concurrent.async(group: group) { counter.withLock { $0 += 1 } } }
        concurrent.sync(flags: .barrier) {}
        group.wait()
        XCTAssertEqual(counter.withLock { $0 }, 100)

        let semaphore = StressSemaphore(value: 1)
        semaphore.wait()
        XCTAssertEqual(semaphore.wait(timeout: .now() + .milliseconds(1)), .timedOut)
        _ = semaphore.signal()

        let once = StressOnce()
        var runs = 0
        for _ in 0..<3 { once.run { runs += 1 } }
        XCTAssertEqual(runs, 1)

        fuzzPoint()  // nothing happens outside a trial
        XCTAssertFalse(reportViolation("not in a trial"))
    }

    /// The rest of Foundation's and Dispatch's shapes, so a typealias swap
    /// compiles unchanged: `NSLocking` (code generic over it), `lock(before:)`,
    /// `wait(until:)`, and `DispatchWorkItem`s on a queue, cancelled ones
    /// not run.
    func testTheWrappersHaveFoundationsShapes() {
        func increment<L: NSLocking>(_ value: inout Int, under lock: L) {
            lock.lock()
            value += 1
            lock.unlock()
        }
        var value = 0
        increment(&value, under: StressLock())
        increment(&value, under: StressCondition())
        XCTAssertEqual(value, 2)

        let lock = StressLock()
        XCTAssertTrue(lock.lock(before: Date().addingTimeInterval(1)), "a free lock is taken at once")
        let tookIt = Mutex(true)
        let other = DispatchGroup()
        DispatchQueue.global().async(group: other) { tookIt.withLock { $0 = lock.lock(before: Date().addingTimeInterval(0.01)) } }
        other.wait()
        XCTAssertFalse(tookIt.withLock { $0 }, "held by this thread: the other gives up at its limit")
        lock.unlock()

        let condition = StressCondition()
        let limit = Date().addingTimeInterval(0.001)
        condition.lock()
        // Nobody signals, but a condition may wake without a signal: the loop
        // ends when a wait returns false, at its limit.
        while condition.wait(until: limit) {}
        condition.unlock()

        let queue = StressQueue(label: "outside.items")
        var ran: [String] = []
        queue.sync(execute: DispatchWorkItem { ran.append("sync") })
        let cancelled = DispatchWorkItem { ran.append("cancelled") }
        cancelled.cancel()
        queue.async(execute: cancelled)
        queue.async(execute: DispatchWorkItem { ran.append("async") })
        queue.sync {}
        XCTAssertEqual(ran, ["sync", "async"])
    }

    func testACrashNamesItsPrintedCauseOrSaysWhyThereIsNone() {
        let spec = Synthetic.trial(strategy: "pthread-mutex", repetition: 0, opsPerSecond: 1, latencyNs: 10).trial
        let printed = TrialResult.failed(spec, .crashed, FailureReport(
            message: "the trial process died of SIGILL", signal: "SIGILL",
            outputTail: ["noise", "StressKit/X.swift:9: Fatal error: the lock was taken twice", "(3 stack-trace lines omitted)"]))
        XCTAssertEqual(printed.namingCrashCause().failure?.message,
                       "the trial process died of SIGILL: Fatal error: the lock was taken twice")

        let bare = TrialResult.failed(spec, .crashed, FailureReport(message: "the trial process died of SIGILL", signal: "SIGILL",
                                                                    outputTail: ["stressbench: the trial process got SIGILL"]))
        let hint = bare.namingCrashCause().failure?.message ?? ""
        XCTAssertTrue(hint.contains("the process trapped without a message: a failed check, which a release build (-c release) reports with no message"), hint)
        XCTAssertFalse(hint.contains("fatalError"), "a bare trap is not always the author's precondition: \(hint)")

        let killed = TrialResult.failed(spec, .crashed, FailureReport(message: "the trial process died of SIGKILL", signal: "SIGKILL"))
        XCTAssertEqual(killed.namingCrashCause().failure?.message, "the trial process died of SIGKILL")
    }
}
