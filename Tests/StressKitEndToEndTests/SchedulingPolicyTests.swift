import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import Synchronization
import XCTest

/// What a test policy saw: the fuzz points of thread workers, the measured
/// windows begun, and every choice of the harness executor.
private final class SeamTally: Sendable {
    let points = Atomic<Int>(0)
    let windows = Atomic<Int>(0)
    let choices = Mutex<[Int]>([])
}

/// A policy only a test registers: it perturbs nothing, counts the thread
/// workers' fuzz points through its coordinator, and on the harness
/// executor always runs the highest-numbered runnable worker.
private struct HighestFirstPolicy: SchedulingPolicy {
    let name: String
    let tally: SeamTally

    func configure(_ settings: inout FuzzSettings) {}

    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        HighestFirstScheduler(tally: tally)
    }

    func makeCoordinator(board: SiteBoard, settings: FuzzSettings, seed: UInt64) -> (any FuzzCoordinator)? {
        CountingCoordinator(tally: tally)
    }
}

private struct HighestFirstScheduler: ExecutionScheduler {
    let tally: SeamTally

    mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int {
        let chosen = runnable.max()!
        tally.choices.withLock { $0.append(chosen) }
        return chosen
    }
}

private final class CountingCoordinator: FuzzCoordinator {
    let tally: SeamTally
    init(tally: SeamTally) { self.tally = tally }
    func point(_ worker: Int) { tally.points.add(1, ordering: .relaxed) }
    func pointInTask(_ worker: Int) async { tally.points.add(1, ordering: .relaxed) }
    func count() { tally.points.add(1, ordering: .relaxed) }
    func beginMeasuredWindow(board: SiteBoard, settings: TrialSettings, scenario: Bool) {
        tally.windows.add(1, ordering: .relaxed)
    }
    func beginRound(_ round: Int) {}
}

/// Scheduling as a seam: policies are found by name, the built-ins keep
/// their contract names and presets, and a policy a test registers drives
/// both the thread workers' fuzz points and the harness executor's choice.
final class SchedulingPolicyTests: XCTestCase {
    private final class Nothing: Sendable {}

    /// Registers a fresh test policy under `name` until the test ends (the
    /// table is process-wide: other tests list the policies).
    private func register(_ name: String) -> (StressRegistry, SeamTally) {
        let tally = SeamTally()
        var registry = TestSupport.registry
        registry.register(policy: HighestFirstPolicy(name: name, tally: tally))
        addTeardownBlock { SchedulingPolicies.unregister(name) }
        return (registry, tally)
    }

    func testTheBuiltInPoliciesKeepTheirNamesAndPresets() throws {
        XCTAssertEqual(Array(FuzzProfile.allCases.prefix(6).map(\.rawValue)), ["off", "light", "yield", "chaos", "pct", "portfolio"])
        XCTAssertEqual(StressRegistry.builtInPolicies.map(\.name), ["off", "light", "yield", "chaos", "pct", "portfolio"])
        XCTAssertNil(FuzzProfile(rawValue: "chaoss"), "an unknown name is refused where plans and --fuzz check it")

        // The presets, field by field, as the guide documents them.
        XCTAssertFalse(FuzzSettings(.off).isActive)
        let light = FuzzSettings(.light)
        XCTAssertEqual([light.spinProbability, Double(light.spinMaxNanoseconds)], [0.01, 2_000])
        let yield = FuzzSettings(.yield)
        XCTAssertEqual([yield.yieldProbability, Double(yield.staggerMaxNanoseconds)], [0.1, 100_000])
        let chaos = FuzzSettings(.chaos)
        XCTAssertEqual([chaos.yieldProbability, chaos.spinProbability, chaos.sleepProbability, chaos.starveProbability,
                        Double(chaos.staggerMaxNanoseconds)], [0.05, 0.05, 0.002, 0.001, 1_000_000])
        let pct = FuzzSettings(.pct)
        XCTAssertEqual([Double(pct.pctDepth), pct.yieldProbability, Double(pct.staggerMaxNanoseconds)], [3, 0.01, 100_000])
        var portfolio = FuzzSettings(.portfolio)
        portfolio.profile = .chaos
        XCTAssertEqual(portfolio, chaos, "an unrotated portfolio is chaos")

        // A profile is its bare name in the records, and a name this process
        // does not know still reads back.
        let json = try String(decoding: JSONEncoder().encode(FuzzSettings(.pct)), as: UTF8.self)
        XCTAssertTrue(json.contains(#""profile":"pct""#), json)
        let foreign = try JSONDecoder().decode(FuzzProfile.self, from: Data(#""someone-elses""#.utf8))
        XCTAssertEqual(foreign.rawValue, "someone-elses")
    }

    /// Only a policy that needs the workers to agree makes a coordinator:
    /// with `off` a fuzz point stays one branch on a worker-local flag.
    func testOnlyPCTSettingsMakeACoordinator() {
        let operations = [StressOperation<Nothing>("a", weight: 1, steps: [.unguarded("x") { _, _ in .next }])]
        let board = SiteBoard(workers: 2, operations: operations)
        for profile in FuzzProfile.allCases.prefix(6) {
            let settings = FuzzSettings(profile)
            let coordinator = SchedulingPolicies.policy(for: profile).makeCoordinator(board: board, settings: settings, seed: 1)
            XCTAssertEqual(coordinator != nil, profile == .pct, "\(profile)")
        }
        XCTAssertFalse(Fuzzer.off.active)
    }

    /// A policy registered by a test runs from a plan: every fuzz point of
    /// the thread workers reaches its coordinator, and the coordinator is
    /// told once that the measured window begins.
    func testACustomPolicyDrivesTheThreadWorkersFuzzPoints() throws {
        let (registry, tally) = register("test-highest-first-threads")
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: counter
                strategies: [pthread-mutex]
                threads: 2
                ops: 300
                warmup: 0
                fuzz: test-highest-first-threads
            """, file: "test.yaml", registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        XCTAssertEqual(trial.trial.fuzz.profile.rawValue, "test-highest-first-threads")
        // At least an operation's start and end on each of 600 operations.
        XCTAssertGreaterThanOrEqual(tally.points.load(ordering: .relaxed), 1_200)
        XCTAssertEqual(tally.windows.load(ordering: .relaxed), 1)
    }

    /// The deterministic executor's job choice goes through the same
    /// protocol: the test policy's scheduler picks every job, and the same
    /// seed makes the same choices again.
    func testACustomPolicyPicksEveryJobOfTheDeterministicExecutor() throws {
        let (registry, tally) = register("test-highest-first-jobs")
        var runs: [[Int]] = []
        for _ in 0..<2 {
            tally.choices.withLock { $0.removeAll() }
            let report = try PlanRunner.run(yaml: """
                experiments:
                  - workload: counter
                    strategies: [actor]
                    threads: 3
                    ops: 200
                    warmup: 0
                    seed: 5
                    executor: deterministic
                    fuzz: test-highest-first-jobs
                """, file: "test.yaml", registry: registry)
            let trial = try XCTUnwrap(report.trials.first)
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            let stats = try XCTUnwrap(trial.executorStats)
            let choices = tally.choices.withLock { $0 }
            XCTAssertGreaterThanOrEqual(choices.count, 600, "every operation's job was chosen by the policy")
            XCTAssertEqual(UInt64(choices.count), stats.picks, "one choice per job run")
            runs.append(choices)
        }
        XCTAssertEqual(runs[0], runs[1], "the same seed, the same schedule")
    }

    /// A test's policy leaves with the test; a built-in never does.
    func testATestPolicyIsGoneOnceUnregistered() {
        SchedulingPolicies.register(HighestFirstPolicy(name: "test-passing-through", tally: SeamTally()))
        XCTAssertNotNil(FuzzProfile(rawValue: "test-passing-through"))
        SchedulingPolicies.unregister("test-passing-through")
        SchedulingPolicies.unregister("pct")
        XCTAssertNil(FuzzProfile(rawValue: "test-passing-through"))
        XCTAssertEqual(FuzzProfile.allCases.map(\.rawValue), ["off", "light", "yield", "chaos", "pct", "portfolio"])
    }

    /// The engine, its drivers and the executor reach policies only through
    /// the protocol: none of their files names a profile or a concrete
    /// policy, so a new policy is its file and one line in BuiltIns.swift.
    func testTheEngineAndTheExecutorNeverNameAPolicy() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/StressCore")
        let forbidden = ["FuzzProfile", "SoftPCT", "PCTPolicy", "ChaosPolicy", "OffPolicy", "profile ==", ".pctDepth"]
        var checked = 0
        for folder in ["Engine", "Async"] {
            let root = sources.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for word in forbidden {
                    XCTAssertFalse(text.contains(word), "\(folder)/\(file.lastPathComponent) names \(word)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 20, "the engine's and the executor's files were found")
    }
}
