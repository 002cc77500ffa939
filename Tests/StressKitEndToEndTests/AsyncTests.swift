import Dispatch
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import Synchronization
import XCTest

/// A counter behind a team's own actor, awaited from an async step, next to a
/// synchronous step that the strategy guards: the two kinds in one operation.
private struct AsyncTallyWorkload: Workload {
    static let descriptor = WorkloadDescriptor(name: "test-async-tally", summary: "an actor counter and a guarded counter")

    actor Tally {
        private(set) var count = 0
        func add() async {
            let seen = count
            await Task.yield()  // a suspension inside the actor's method: reentrancy
            count = max(count, seen) + 1
        }
    }

    final class State: @unchecked Sendable {
        // @unchecked: `guarded` is only touched inside the strategy's write
        // section, whose safety is what the strategy under test provides.
        let tally = Tally()
        var guarded = 0
    }

    init(parameters: WorkloadParameters) throws {}

    func makeState(threads: Int) -> State { State() }

    func operations() -> [StressOperation<State>] {
        [
            StressOperation("both", weight: 1, steps: [
                .awaiting("await-actor") { state, _ in
                    await state.tally.add()
                    return .next
                },
                .write("guarded") { state, _ in
                    state.guarded += 1
                    return .next
                },
            ]),
        ]
    }

    func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        state.guarded == totals.count(of: "both") ? [] : ["guarded count \(state.guarded) after \(totals.count(of: "both")) operations"]
    }
}

/// Each operation sleeps `sleep_s` seconds (`Task.sleep`) and, with `spawn`,
/// awaits an unstructured `Task {}` of its own: what the deterministic
/// executor's virtual clock and its global-executor hook are for.
private struct AsyncSleeperWorkload: Workload {
    static let descriptor = WorkloadDescriptor(name: "test-async-sleeper", summary: "long sleeps and unstructured tasks", parameters: [
        .integer("sleep_s", "seconds each operation sleeps", default: 60, range: 0...3_600),
        .flag("spawn", "await a Task {} in each operation", default: true),
    ])

    final class State: Sendable {
        let spawned = Atomic<Int>(0)
    }

    let sleepSeconds: Int, spawn: Bool
    init(parameters: WorkloadParameters) throws {
        sleepSeconds = try parameters.integer("sleep_s")
        spawn = try parameters.flag("spawn")
    }

    func makeState(threads: Int) -> State { State() }

    func operations() -> [StressOperation<State>] {
        let seconds = sleepSeconds, spawn = self.spawn
        return [StressOperation("nap", weight: 1, steps: [
            .awaiting("sleep") { state, _ in
                try? await Task.sleep(for: .seconds(seconds))
                if spawn { await Task { _ = state.spawned.add(1, ordering: .relaxed) }.value }
                return .next
            },
        ])]
    }

    func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        spawn && state.spawned.load(ordering: .relaxed) != totals.count(of: "nap")
            ? ["\(state.spawned.load(ordering: .relaxed)) tasks ran for \(totals.count(of: "nap")) operations"] : []
    }
}

/// Async code under test (docs/async.md): async steps, the harness executor and
/// its deterministic mode, the task-aware watchdog, and Plans/async.yaml.
final class AsyncTests: XCTestCase {
    private var registry: StressRegistry {
        var registry = StressRegistry.builtIn
        registry.register(workload: AsyncTallyWorkload.self)
        registry.register(workload: AsyncSleeperWorkload.self)
        return registry
    }

    /// The deterministic executor's virtual clock: ten minutes of
    /// `Task.sleep` across two workers pass without waiting for them (on a
    /// real clock the 30 s trial timeout would end the trial first), and
    /// the unstructured `Task {}`s come back through the global-executor
    /// hook, counted in `globalJobs` beyond the sleeps' own wake-ups.
    func testSleepsAreVirtualAndUnstructuredTasksAreBroughtBackOnTheDeterministicExecutor() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-async-sleeper
                parameters: { sleep_s: 60, spawn: true }
                strategies: [unsynchronized]
                threads: [2]
                ops: 5
                warmup: 0
                timeout: 30s
                executor: deterministic
            """, registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        XCTAssertEqual(trial.measurement?.totalOps, 10)
        let stats = try XCTUnwrap(trial.executorStats)
        XCTAssertEqual(stats.threads, 1, "one thread: the seed picks every job")
        XCTAssertGreaterThanOrEqual(stats.timedJobs, 10, "every sleep went through the executor")
        let global = try XCTUnwrap(stats.globalJobs, "the runtime has the enqueue hook on Linux")
        XCTAssertGreaterThan(global, stats.timedJobs, "the Task {}s' jobs came through the hook too")
    }

    /// Async and guarded sync steps in one operation, under lock, queue and
    /// actor strategies, on each executor: the workers are tasks, the sync
    /// step still goes through the strategy (its count is exact), and the
    /// harness executors report what they ran.
    func testAsyncAndGuardedStepsMixUnderEveryKindOfStrategyAndExecutor() throws {
        for executor in ExecutorChoice.allCases {
            let report = try PlanRunner.run(yaml: """
                experiments:
                  - workload: test-async-tally
                    strategies: [pthread-mutex, serial-queue, actor]
                    threads: [3]
                    ops: 300
                    warmup: 0
                    fuzz: yield
                    executor: \(executor.rawValue)
                """, registry: registry)
            XCTAssertEqual(report.trials.count, 3)
            for trial in report.trials {
                XCTAssertEqual(trial.outcome, .passed, "\(executor): " + WorkloadTestSupport.describe(trial))
                XCTAssertEqual(trial.measurement?.totalOps, 900)
                XCTAssertEqual(trial.trial.executor, executor)
                if executor == .global {
                    XCTAssertNil(trial.executorStats)
                } else {
                    let stats = try XCTUnwrap(trial.executorStats, "\(executor)")
                    XCTAssertEqual(stats.threads == 1, executor == .deterministic, "\(stats)")
                    XCTAssertGreaterThanOrEqual(stats.picks, 900, "every operation awaits at least once: \(stats)")
                }
            }
        }
    }

    /// A program with an async step picks the harness executor by itself.
    func testAnAsyncProgramRunsOnTheHarnessExecutorUnlessThePlanSaysOtherwise() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-async-tally
                strategies: [mutex]
                threads: [2]
                ops: 100
                warmup: 0
            """, registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        XCTAssertNil(trial.trial.executor)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(trial.executorStats).threads, 2)
    }

    func testAnUnknownExecutorIsAPlanErrorWithItsKeyPath() throws {
        let plan = try TestSupport.temporaryDirectory().appendingPathComponent("executor.yaml").path
        try """
            experiments:
              - workload: counter
                strategies: [actor]
                executor: fastest
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let check = try TestSupport.cli(["validate", plan])
        XCTAssertEqual(check.status, 2, check.stdout + check.stderr)
        XCTAssertTrue((check.stdout + check.stderr).contains("experiments[0].executor"), check.stdout + check.stderr)
        XCTAssertTrue((check.stdout + check.stderr).contains("expected global, harness or deterministic, found 'fastest'"),
                      check.stdout + check.stderr)
    }

    /// The judged phases the watchdog sees for workers in an async step.
    func testTheWatchdogJudgesAnAwaitingWorkerByWhatTheExecutorSays() {
        let site = SiteWord(site: 3, phase: .awaiting)
        let raw = Array(repeating: ParticipantState(site: site, completed: 0), count: 4)
        let activities: [WorkerActivity?] = [
            WorkerActivity(queued: 0, runningSinceNs: 5, sleeping: false, jobsRun: 1),
            WorkerActivity(queued: 2, runningSinceNs: nil, sleeping: false, jobsRun: 1),
            WorkerActivity(queued: 0, runningSinceNs: nil, sleeping: true, jobsRun: 1),
            WorkerActivity(queued: 0, runningSinceNs: nil, sleeping: false, jobsRun: 1),
        ]
        let judged = Watchdog.judged(raw, activities).map(\.site)
        XCTAssertEqual(judged.map(\.phase), [.running, .fuzzing, .fuzzing, .awaiting])
        XCTAssertEqual(judged.map(\.site), [3, 3, 3, 3], "only the phase changes")
        XCTAssertEqual(Watchdog.judged(raw, [nil, nil, nil, nil]).map(\.site.phase), Array(repeating: .awaiting, count: 4),
                       "on the global executor an awaiting worker counts as waiting")
    }

    /// Every variant of Plans/async.yaml ends as its comment says, with the
    /// plan's seeds (each bug found by every seed measured with
    /// scripts/async-bench.sh; see docs/async.md).
    func testAsyncPlanFindsEachBugAndPassesTheCorrectCode() throws {
        let dir = try TestSupport.temporaryDirectory()
        let json = dir.appendingPathComponent("async.json").path
        let run = try WorkloadTestSupport.run(TestSupport.stressbenchPath, ["run", "Plans/async.yaml", "--json", json, "-q"])
        XCTAssertEqual(run.status, 0, "every bug caught, as the plan expects: " + run.stdout + run.stderr)
        let report = try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        var byExperiment: [String: [TrialResult]] = [:]
        for trial in report.trials { byExperiment[trial.trial.experiment, default: []].append(trial) }
        let correct = byExperiment.keys.filter { $0.hasSuffix("-correct") || $0.hasSuffix("-reserve") }
        XCTAssertEqual(Set(correct), ["bank-account-correct", "bank-account-reserve", "connection-pool-correct",
                                      "stream-relay-correct", "legacy-fetcher-correct"])
        for name in correct {
            for trial in byExperiment[name] ?? [] { XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial)) }
        }
        func first(_ experiment: String) throws -> TrialResult { try XCTUnwrap(byExperiment[experiment]?.first, experiment) }
        func message(_ trial: TrialResult) -> String { trial.violations.samples.first?.message ?? "" }

        let overdraft = try first("overdraft")
        XCTAssertEqual(overdraft.outcome, .violated, WorkloadTestSupport.describe(overdraft))
        XCTAssertTrue(message(overdraft).hasPrefix("overdraft: the balance is -"), message(overdraft))
        XCTAssertEqual(overdraft.executorStats?.threads, 1, "the plan's deterministic executor")

        let pool = try first("over-capacity")
        XCTAssertEqual(pool.outcome, .violated, WorkloadTestSupport.describe(pool))
        XCTAssertTrue(message(pool).contains("over the maximum of 2"), message(pool))

        let dropped = try first("dropped-element")
        XCTAssertEqual(dropped.outcome, .violated, WorkloadTestSupport.describe(dropped))
        XCTAssertTrue(message(dropped).contains("dropped by the stream's buffer"), message(dropped))

        let twice = try first("resumed-twice")
        XCTAssertEqual(twice.outcome, .crashed, WorkloadTestSupport.describe(twice))
        XCTAssertTrue(twice.failure?.message.contains("SWIFT TASK CONTINUATION MISUSE") == true
                      && twice.failure?.message.contains("tried to resume its continuation more than once") == true,
                      twice.failure?.message ?? "no failure")

        let never = try first("never-resumed")
        XCTAssertEqual(never.outcome, .deadlock, WorkloadTestSupport.describe(never))
        let stall = try XCTUnwrap(never.stall)
        XCTAssertTrue(stall.summary.contains("suspended in an await"), stall.summary)
        XCTAssertTrue(stall.workers.contains { $0.description.hasPrefix("fetch/fetch: suspended in an await") }, "\(stall.workers)")
    }

    /// The deterministic executor makes an async trial's interleaving a
    /// function of its seed: every replay fails the same way, on one core too.
    func testDeterministicReplayReproducesTheSameFailureEveryTime() throws {
        let list = try TestSupport.cli(["run", "Plans/async.yaml", "--only", "overdraft", "-q"])
        let seed = try XCTUnwrap(list.stdout.firstMatch(of: /--seed (\d+)/)?.1, list.stdout)
        for launcher in [[], ["/usr/bin/taskset", "-c", "0"]] where launcher.isEmpty || FileManager.default.isExecutableFile(atPath: launcher[0]) {
            // The issue's own command: --times 10 and the profile named.
            let replay = try TestSupport.cli(["replay", "Plans/async.yaml", "--only", "overdraft", "--seed", String(seed),
                                              "--times", "10", "--fuzz", "yield"], launcher: launcher)
            XCTAssertEqual(replay.status, 0, replay.stdout + replay.stderr)
            XCTAssertTrue(replay.stdout.contains("replay rate: 10/10"), replay.stdout)
            XCTAssertTrue(replay.stdout.contains("executor deterministic"), replay.stdout)
            XCTAssertTrue(replay.stdout.contains("every reproduction failed with the same first message"), replay.stdout)
        }
    }
}

/// A serial executor of a team's own: jobs run one by one on a dispatch queue.
private final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: the queue is immutable and serializes what it runs.
    private let queue = DispatchQueue(label: "test-queue-actor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }
}

/// A team's own actor, with that executor, plugged in as a strategy through
/// ``ActorAdaptor``.
private actor QueueBackedActor: StrategyActor {
    static let strategyName = "test-queue-actor"
    private let executor = QueueExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    init() {}
}

final class ActorAdaptorTests: XCTestCase {
    func testATeamsOwnActorIsAStrategyInOneLine() throws {
        var registry = StressRegistry.builtIn
        registry.register(strategy: ActorAdaptor<QueueBackedActor>.self)
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: counter
                strategies: [test-queue-actor]
                threads: [1, 4]
                ops: 2000
                warmup: 0
                fuzz: yield
              - name: reentrancy
                workload: lifecycle
                parameters: {variant: actor-reentrancy, slots: 1}
                strategies: [test-queue-actor]
                threads: [8]
                duration: 3s
                warmup: 0
                fuzz: yield
                stop_on_violation: true
                seed: 5
            """, registry: registry)
        let byName = Dictionary(grouping: report.trials, by: \.trial.experiment)
        for trial in byName["counter"] ?? [] {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            XCTAssertEqual(trial.measurement?.totalOps, 2000 * trial.trial.threads)
        }
        XCTAssertEqual(byName["counter"]?.count, 2)
        let reentrancy = try XCTUnwrap(byName["reentrancy"]?.first)
        XCTAssertEqual(reentrancy.outcome, .violated, "the actor is reentrant across the nested call, as every actor: "
                       + WorkloadTestSupport.describe(reentrancy))
    }
}
