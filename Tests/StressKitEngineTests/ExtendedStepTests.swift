import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// A lock held from one step to a later one (hand over hand, across an
/// unguarded decision), more than four registers, nesting three deep.
/// Invariant: every node's counter, bumped with a fuzz point between its read
/// and its write, equals the walks finished; registers 4 to 15 survive the
/// steps. Node 1 is read in the step that takes it and written back in the
/// step that releases it, three steps later (one of them unguarded): only a
/// hold that really lasts across those steps keeps its count whole.
private struct HandOverHandWorkload: Workload {
    static let descriptor = WorkloadDescriptor(name: "test-hand-over-hand", summary: "hold/release steps", parameters: [])

    final class State: @unchecked Sendable {
        // @unchecked: the strategy under test guards the counters.
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 4)
        let walks: CacheLineArray<Int>
        let threads: Int
        init(threads: Int) {
            counts.initialize(repeating: 0, count: 4)
            walks = CacheLineArray(count: threads)
            self.threads = threads
        }
        deinit {
            counts.deallocate()
            walks.deallocate()
        }
        func bump(_ i: Int, _ frame: inout OpFrame) {
            let seen = counts[i]
            frame.fuzzPoint()
            counts[i] = seen + 1
        }
        var totalWalks: Int { (0..<threads).reduce(0) { $0 + walks[$1].pointee } }
    }

    init(parameters: WorkloadParameters) throws {}
    var resourceCount: Int { 4 }
    func makeState(threads: Int) -> State { State(threads: threads) }

    func operations() -> [WorkloadOperation] {
        [
            WorkloadOperation("walk", weight: 0.7, steps: [
                .hold("take-0", resource: 0) { s, f in s.bump(0, &f); return .next },
                .hold("take-1", resource: 1) { s, f in f[register: 0] = s.counts[1]; return .next },
                .release("drop-0", resource: 0),
                .unguarded("decide") { _, f in
                    for r in 4..<OpFrame.registerCount { f[register: r] = f.thread * 100 + r }
                    f.fuzzPoint()
                    return .next
                },
                .hold("take-2", resource: 2) { s, f in s.bump(2, &f); return .next },
                .release("drop-1", resource: 1) { s, f in s.counts[1] = f[register: 0] + 1; return .next },
                .release("drop-2", resource: 2) { s, f in
                    for r in 4..<OpFrame.registerCount where f[register: r] != f.thread * 100 + r {
                        return .violation("register \(r) holds \(f[register: r])")
                    }
                    s.walks[f.thread].pointee += 1
                    return .next
                },
            ]),
            WorkloadOperation("deep", weight: 0.3, steps: [
                .nestedWrites("deep", resources: [0, 1, 2]) { s, f in
                    // (A plain loop: `allSatisfy` is a generic call that the
                    // debug build does not specialize, and it allocates.)
                    for r in 4..<OpFrame.registerCount where f[register: r] != 0 {
                        return .violation("registers were not zeroed between operations")
                    }
                    s.bump(3, &f)
                    return .next
                },
            ]),
        ]
    }

    func finalCheck(_ s: State, _ totals: RunTotals) -> [String] {
        let walks = s.totalWalks, deep = totals.count(of: "deep")
        var problems: [String] = []
        for i in 0..<3 where s.counts[i] != walks { problems.append("node \(i) counted \(s.counts[i]), walks \(walks)") }
        if s.counts[3] != deep { problems.append("deep counted \(s.counts[3]), operations \(deep)") }
        return problems
    }
}

/// Producers (even workers) and consumers (odd workers) of one mailbox; a
/// consumer waits on the resource until an item is there. With `starve`,
/// nobody produces: every wait runs out of time, which is a violation.
private struct MailboxWorkload: Workload {
    static let descriptor = WorkloadDescriptor(name: "test-mailbox", summary: "waitUntil steps", parameters: [
        .flag("starve", "nobody produces", default: false),
    ])

    final class State: @unchecked Sendable {
        // @unchecked: the strategy under test guards `items`.
        var items = 0
        let puts: CacheLineArray<Int>, takes: CacheLineArray<Int>
        let threads: Int
        init(threads: Int) {
            puts = CacheLineArray(count: threads)
            takes = CacheLineArray(count: threads)
            self.threads = threads
        }
        deinit {
            puts.deallocate()
            takes.deallocate()
        }
        func sum(_ a: CacheLineArray<Int>) -> Int { (0..<threads).reduce(0) { $0 + a[$1].pointee } }
    }

    let starve: Bool
    init(parameters: WorkloadParameters) throws { starve = try parameters.flag("starve") }
    func makeState(threads: Int) -> State { State(threads: threads) }

    func operations() -> [WorkloadOperation] {
        let starve = self.starve
        return [
            WorkloadOperation("exchange", weight: 1, steps: [
                .waitUntil("take-or-put", resource: 0, timeout: starve ? .milliseconds(50) : .seconds(2), { s, f in
                    (!starve && f.thread % 2 == 0) || s.items > 0
                }, then: { s, f in
                    if !starve && f.thread % 2 == 0 {
                        s.items += 1
                        s.puts[f.thread].pointee += 1
                        return .next
                    }
                    s.items -= 1
                    s.takes[f.thread].pointee += 1
                    return s.items >= 0 ? .next : .violation("took from an empty mailbox")
                }),
            ]),
        ]
    }

    func finalCheck(_ s: State, _ totals: RunTotals) -> [String] {
        let puts = s.sum(s.puts), takes = s.sum(s.takes)
        return s.items == puts - takes && s.items >= 0 ? [] : ["mailbox holds \(s.items) after \(puts) puts and \(takes) takes"]
    }
}

/// A deliberately broken holding strategy, the control that shows the
/// hand-over-hand test can fail: each step's own access is locked, but
/// `acquire` and `release` do nothing, so a hold ends with its step.
private final class LeakyHoldStrategy: HoldingStrategy, @unchecked Sendable {
    // @unchecked: it is meant to be unsafe across steps (that is the bug it
    // stands for); within one step the NSLocks order the accesses.
    static let descriptor = StrategyDescriptor(
        name: "test-leaky-hold", summary: "locks each step, holds nothing across steps (broken on purpose)",
        reentrant: false, sharedReads: false)

    private let locks: [NSLock]
    init(setup: StrategySetup) { locks = (0..<setup.resources).map { _ in NSLock() } }
    func read(_ resource: Int, _ body: () -> Void) { locks[resource].withLock(body) }
    func write(_ resource: Int, _ body: () -> Void) { locks[resource].withLock(body) }
    func acquire(_ resource: Int) {}
    func release(_ resource: Int) {}
}

final class ExtendedStepTests: XCTestCase {
    private var registry: StressRegistry {
        var registry = StressRegistry.builtIn
        registry.register(workload: HandOverHandWorkload.self)
        registry.register(workload: MailboxWorkload.self)
        registry.register(strategy: LeakyHoldStrategy.self)
        return registry
    }

    func testHoldAcrossStepsRegistersAndDeepNestingStayCorrect() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-hand-over-hand
                strategies: [pthread-mutex, recursive-lock, semaphore, condition, {name: mixed, resources: [nslock, semaphore]}]
                threads: [4]
                duration: 200ms
                warmup: 0
                fuzz: yield
                seed: 3
            """, registry: registry)
        XCTAssertEqual(report.trials.count, 5)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            XCTAssertGreaterThan(trial.measurement?.totalOps ?? 0, 0)
        }
    }

    /// The control: a strategy whose holds end with their step loses node
    /// 1's updates, so the test above would see a hold that does not last.
    func testAHoldThatEndsWithItsStepLosesUpdates() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-hand-over-hand
                strategies: [test-leaky-hold]
                threads: [4]
                ops: 20k
                warmup: 0
                fuzz: yield
                seed: 3
            """, registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .violated, WorkloadTestSupport.describe(trial))
        XCTAssertTrue(trial.violations.samples.contains { $0.message.hasPrefix("node 1 counted") },
                      WorkloadTestSupport.describe(trial))
    }

    /// The richer steps keep the hot loop allocation-free: holding across
    /// steps, nesting three deep, sixteen registers and waiting until a
    /// predicate holds allocate nothing per operation (one worker, so no
    /// contention wakes libdispatch or the kernel into allocating for us).
    /// It found `waitUntil` building its timeout message on every call.
    func testHoldNestingAndWaitUntilAllocateNothingPerOperation() throws {
        #if os(Linux)
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-hand-over-hand
                strategies: [pthread-mutex, semaphore, condition]
                threads: 1
                ops: 20k
                warmup: 10ms
              - workload: test-mailbox
                strategies: [pthread-mutex, condition]
                threads: 1
                ops: 20k
                warmup: 10ms
            """, registry: registry)
        XCTAssertEqual(report.trials.count, 5)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
            let allocator = try XCTUnwrap(trial.measurement?.allocator, trial.trial.id)
            let perOp = try XCTUnwrap(allocator.allocationsPerOp, trial.trial.id)
            // The count is the whole process's: in a debug build the
            // watchdog's sampling thread allocates a little as it reads the
            // board, at a rate in time, not per operation (about 0.01 per
            // operation here; more on a slower, loaded machine). One
            // allocation in the loop would be 1 or more.
            XCTAssertLessThan(perOp, 0.5, "\(trial.trial.id) allocates in its measured loop")
        }
        #else
        throw XCTSkip("malloc-interposer replaces malloc by linking on Linux only")
        #endif
    }

    func testHoldStepsArePairedOnlyWithStrategiesThatCanHold() throws {
        let named = TestSupport.problems("""
            experiments:
              - workload: test-hand-over-hand
                strategies: [pthread-mutex, serial-queue, actor]
            """, registry: registry)
        XCTAssertEqual(named.count, 2, "\(named)")
        XCTAssertTrue(named.allSatisfy { $0.message.contains("cannot run workload 'test-hand-over-hand'") }, "\(named)")
        XCTAssertTrue(named.contains { $0.message.contains("strategy 'serial-queue'") && $0.message.contains("cannot hold a resource across steps") })
        XCTAssertTrue(named.contains { $0.message.contains("strategy 'actor'") })

        // From `all`, the ones that cannot are left out, not errors.
        let plan = try PlanLoader(registry: registry).load(text: """
            experiments:
              - workload: test-hand-over-hand
                strategies: all
            """, file: "test.yaml")
        let strategies = plan.experiments[0].strategies
        XCTAssertTrue(strategies.contains("pthread-mutex"))
        XCTAssertTrue(strategies.contains("semaphore"))
        XCTAssertFalse(strategies.contains("serial-queue"))
        XCTAssertFalse(strategies.contains("actor"))
    }

    func testWaitUntilWaitsForTheConditionUnderEveryKindOfStrategy() throws {
        // `condition` waits on its own NSCondition; the other blocking ones on
        // the engine's signal; `actor` looks between sleeps.
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-mailbox
                strategies: [condition, pthread-mutex, serial-queue, rw-queue, actor]
                threads: [4]
                duration: 200ms
                warmup: 0
                fuzz: yield
                seed: 5
            """, registry: registry)
        XCTAssertEqual(report.trials.count, 5)
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        }
    }

    func testAWaitThatRunsOutOfTimeIsAViolationNamingTheStep() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-mailbox
                parameters: {starve: true}
                strategies: [condition, pthread-mutex]
                threads: [2]
                duration: 300ms
                warmup: 0
                stop_on_violation: true
            """, registry: registry)
        XCTAssertEqual(report.trials.map(\.trial.strategy), ["condition", "pthread-mutex"])
        for trial in report.trials {
            XCTAssertEqual(trial.outcome, .violated, WorkloadTestSupport.describe(trial))
            let message = trial.violations.samples.first?.message ?? ""
            XCTAssertTrue(message.contains("for the condition of step 'exchange/take-or-put' on resource 0, and it never held"), message)
        }
    }

    func testAStrategyPerResourceIsCheckedPartByPartAndRecorded() throws {
        let problems = TestSupport.problems("""
            experiments:
              - workload: bank
                strategies: [{name: semaphore, resources: [semaphore]}, {resources: [actor, nope]}, {name: x}, {resources: [target-queue]}]
            """)
        let messages = problems.map { "\($0.path): \($0.message)" }
        XCTAssertEqual(messages.count, 5, "\(messages)")
        XCTAssertTrue(messages[0].contains("'semaphore' is the name of a registered strategy"), messages[0])
        XCTAssertTrue(messages[1].contains("strategies[1].resources[0]") && messages[1].contains("it runs tasks"), messages[1])
        XCTAssertTrue(messages[2].contains("strategies[1].resources[1]") && messages[2].contains("unknown strategy 'nope'"), messages[2])
        XCTAssertTrue(messages[3].contains("lists the strategy of each resource"), messages[3])
        XCTAssertTrue(messages[4].contains("'target-queue' cannot guard one resource of a mix"), messages[4])

        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: bank
                parameters: {accounts: 4}
                strategies: [{resources: [semaphore, rw-queue]}]
                threads: [3]
                ops: 2000
                fuzz: yield
            """, registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        XCTAssertEqual(trial.trial.strategy, "semaphore_rw-queue")
        XCTAssertEqual(trial.trial.strategyParts, ["semaphore", "rw-queue"])
        XCTAssertEqual(trial.trial.id, "bank/semaphore_rw-queue/t3/r0")
    }
}
