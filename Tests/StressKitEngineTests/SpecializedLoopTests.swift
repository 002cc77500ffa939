import CStressSupport
import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import Synchronization
import XCTest

/// A workload whose second step reports a violation on every `every`-th
/// operation a worker starts: a violation at a known operation and step, with
/// no race involved, so the tests below know exactly what must be booked. With
/// `one_step` the operation is a single step (the specialized loop's batch for
/// one operation of one step) that checks and reports the same way, under the
/// access `access` names (that batch has a loop of its own for reads and one
/// for writes; unguarded and nested steps share a third).
struct EveryNthViolationWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "every-nth-violation",
        summary: "two steps; the second reports a violation on every n-th operation",
        parameters: [
            .integer("every", "operations between two violations", default: 1000, range: 1...1_000_000),
            .flag("one_step", "one step that reports, instead of two", default: false),
            .choice("access", "the one step's access", default: "write", choices: ["write", "read", "unguarded", "nested"]),
            .flag("kernel", "the one step made from a StepKernel (the kernel loop), not a closure", default: false),
        ]
    )

    /// The one step's checks as a kernel: the engine runs it in the loop it
    /// compiles for the kernel and the strategy, where the step's site word is
    /// published once per batch (the step, `batchPhase`), not per operation.
    struct Kernel: StepKernel {
        let every: Int
        let insidePhase: WorkerPhase
        let batchPhase: WorkerPhase
        let write: Bool

        func run(_ state: State, _ frame: inout OpFrame) -> StepResult {
            guard frame.r0 == 0 else { return .violation("register not reset: \(frame.r0)") }
            // A register past r3 too: this kernel is no `FourRegisterKernel`,
            // so its loop must zero them before every operation.
            guard frame[register: 7] == 0 else { return .violation("register 7 not reset: \(frame[register: 7])") }
            frame[register: 7] = 1
            let word = SiteWord(raw: stress_load_relaxed(frame.probe.slot))
            guard word.phase == insidePhase || word.phase == batchPhase, word.isWrite == write, word.site == frame.siteBase else {
                return .violation("site word \(word.phase) write \(word.isWrite) site \(word.site ?? -1)")
            }
            frame.r0 = 1
            return (frame.opNumber + 1) % every == 0 ? .violation("op \(frame.opNumber)") : .next
        }
    }

    final class State: Sendable {}

    let every: Int
    let oneStep: Bool
    let access: StepAccess
    let kernel: Bool

    init(parameters: WorkloadParameters) throws {
        every = try parameters.integer("every")
        oneStep = try parameters.flag("one_step")
        kernel = try parameters.flag("kernel")
        access = switch try parameters.text("access") {
        case "read": .read(0)
        case "unguarded": .unguarded
        case "nested": .nestedWrite(outer: 0, inner: 1)
        default: .write(0)
        }
    }

    /// Two, for the nested write's inner resource.
    var resourceCount: Int { 2 }

    func makeState(threads: Int) -> State { State() }

    func operations() -> [WorkloadOperation] {
        let every = self.every
        // What the step must find published while its body runs.
        let (insidePhase, insideWrite): (WorkerPhase, Bool) = switch access {
        case .read: (.inside, false)
        case .write: (.inside, true)
        case .unguarded: (.running, false)
        case .nestedWrite: (.insideInner, true)
        case .nestedWrites, .hold, .release, .waitUntil, .awaiting: fatalError("this test's steps are the four the specialized loops run")
        }
        if oneStep && kernel {
            let batchPhase: WorkerPhase = if case .unguarded = access { .running } else { .acquiring }
            return [
                WorkloadOperation("op", weight: 1, steps: [
                    Step("only", access: access, kernel: Kernel(every: every, insidePhase: insidePhase, batchPhase: batchPhase, write: insideWrite)),
                ]),
            ]
        }
        if oneStep {
            return [
                WorkloadOperation("op", weight: 1, steps: [
                    Step<State>("only", access: access) { _, frame in
                        // Registers are zeroed before every operation.
                        guard frame.r0 == 0 else { return .violation("register not reset: \(frame.r0)") }
                        // The watchdog sees this worker inside the step's section.
                        let word = SiteWord(raw: stress_load_relaxed(frame.probe.slot))
                        guard word.phase == insidePhase, word.isWrite == insideWrite, word.site == frame.siteBase else {
                            return .violation("site word \(word.phase) write \(word.isWrite) site \(word.site ?? -1)")
                        }
                        frame.r0 = 1
                        return (frame.opNumber + 1) % every == 0 ? .violation("op \(frame.opNumber)") : .next
                    },
                ]),
            ]
        }
        return [
            WorkloadOperation("op", weight: 1, steps: [
                .read("first") { _, frame in
                    frame.r0 = frame.opNumber
                    return .next
                },
                .write("second") { _, frame in
                    // The register still holds what the first step put there.
                    guard frame.r0 == frame.opNumber else { return .violation("register lost: \(frame.r0)") }
                    return (frame.opNumber + 1) % every == 0 ? .violation("op \(frame.opNumber)") : .next
                },
            ]),
        ]
    }

    func finalCheck(_ state: State, _ totals: RunTotals) -> [String] { [] }
}

/// A lock per resource that counts the read and the write sections it is asked
/// for: with one thread a read lock and a write lock behave alike, so only the
/// counts tell which of the two the engine called.
final class CountingLockStrategy: BlockingStrategy {
    static let descriptor = StrategyDescriptor(
        name: "counting-lock", summary: "an NSLock per resource that counts the read and write sections asked for",
        reentrant: false, sharedReads: false
    )

    /// Sections asked for, over every instance: a test resets them before a
    /// plan that runs this strategy in one trial.
    static let reads = Atomic<Int>(0)
    static let writes = Atomic<Int>(0)

    private let locks: ObjectTable<NSLock>

    init(setup: StrategySetup) {
        locks = ObjectTable(count: setup.resources) { _ in NSLock() }
    }

    func read(_ resource: Int, _ body: () -> Void) {
        Self.reads.add(1, ordering: .relaxed)
        locks.withObject(resource) { $0.withLock(body) }
    }

    func write(_ resource: Int, _ body: () -> Void) {
        Self.writes.add(1, ordering: .relaxed)
        locks.withObject(resource) { $0.withLock(body) }
    }
}

/// The measured loop compiled for each strategy's type (used when fuzzing is
/// off) must run exactly what the general loop runs: the same operations from
/// the same seed, the same registers, the same violations booked with the same
/// operation, step and op number.
final class SpecializedLoopTests: XCTestCase {
    private let locks = ["pthread-mutex", "mutex", "nslock", "rwlock", "synchronized", "serial-queue", "unsynchronized"]

    /// With fuzzing on the engine takes the general loop; with it off, the
    /// specialized one. One worker and a fixed seed: the operation mix must
    /// come out the same, count for count.
    func testSpecializedLoopRunsTheSameOperationsAsTheGeneralLoop() throws {
        func counts(fuzz: String) throws -> [String: [String: Int]] {
            let report = try TestSupport.runInProcess("""
                defaults: { threads: 1, ops: 20000, warmup: 0s, seed: 7, timing: {sample: 16} }
                experiments:
                  - workload: counter
                    parameters: { read_ratio: 0.4, variant: split-rmw }
                    strategies: [\(locks.joined(separator: ", "))]
                    fuzz: \(fuzz)
                """)
            var byStrategy: [String: [String: Int]] = [:]
            for t in report.trials {
                XCTAssertEqual(t.outcome, .passed, t.trial.id)
                byStrategy[t.trial.strategy] = try XCTUnwrap(t.measurement, t.trial.id).operations
            }
            return byStrategy
        }
        let general = try counts(fuzz: "light")
        let specialized = try counts(fuzz: "off")
        XCTAssertEqual(Set(specialized.keys), Set(locks))
        for lock in locks {
            XCTAssertEqual(specialized[lock], general[lock], lock)
            XCTAssertEqual(specialized[lock]?.values.reduce(0, +), 20000, lock)
        }
    }

    /// The plain counter is one operation of one step: the specialized loop
    /// runs it in its batch for that case, which must count what the general
    /// loop counts and leave the counter at the number of increments.
    func testOneOperationOfOneStepRunsAsInTheGeneralLoop() throws {
        for fuzz in ["light", "off"] {
            let report = try TestSupport.runInProcess("""
                defaults: { threads: 1, ops: 20000, warmup: 0s, seed: 7, timing: {sample: 16} }
                experiments:
                  - workload: counter
                    parameters: { read_ratio: 0 }
                    strategies: [\(locks.joined(separator: ", "))]
                    fuzz: \(fuzz)
                """)
            XCTAssertEqual(report.trials.count, locks.count)
            for t in report.trials {
                // The final check compares the counter with the increments counted.
                XCTAssertEqual(t.outcome, .passed, "\(t.trial.id) fuzz \(fuzz)")
                XCTAssertEqual(try XCTUnwrap(t.measurement, t.trial.id).operations, ["increment": 20000, "read": 0], t.trial.id)
            }
        }
    }

    /// Violations found in the specialized loop's batches are booked as the
    /// general loop books them: each one, with its operation, step and op
    /// number; in the batch for one operation of one step too.
    func testSpecializedLoopBooksEveryViolationWithItsSite() throws {
        var registry = StressRegistry.builtIn
        registry.register(workload: EveryNthViolationWorkload.self)
        registry.register(strategy: CountingLockStrategy.self)
        let cases = [(false, false, "write", "1"), (false, false, "write", "100"), (false, false, "write", "auto")]
            + [false, true].flatMap { kernel in
                ["write", "read", "unguarded", "nested"].flatMap { access in ["1", "100", "auto"].map { (true, kernel, access, $0) } }
            }
        for (oneStep, kernel, access, sample) in cases {
            CountingLockStrategy.reads.store(0, ordering: .relaxed)
            CountingLockStrategy.writes.store(0, ordering: .relaxed)
            let report = try PlanRunner.run(yaml: """
                experiments:
                  - workload: every-nth-violation
                    parameters: { every: 997, one_step: \(oneStep), access: \(access), kernel: \(kernel) }
                    strategies: [\(locks.joined(separator: ", ")), counting-lock]
                    threads: 1
                    ops: 9970
                    warmup: 0s
                    timing: {sample: \(sample)}
                """, file: "test.yaml", registry: registry)
            XCTAssertEqual(report.trials.map(\.trial.strategy), locks + ["counting-lock"])
            for t in report.trials {
                let label = "\(t.trial.id) one_step \(oneStep) kernel \(kernel) access \(access) sample \(sample)"
                XCTAssertEqual(t.outcome, .violated, label)
                XCTAssertEqual(t.violations.count, 10, label)
                let first = try XCTUnwrap(t.violations.samples.first, label)
                XCTAssertEqual(first.operation, "op", label)
                XCTAssertEqual(first.step, oneStep ? "only" : "second", label)
                XCTAssertEqual(first.opNumber, 996, label)
                XCTAssertEqual(first.message, "op 996", label)
                XCTAssertEqual(Array(t.violations.samples.map(\.opNumber).prefix(3)), [996, 1993, 2990], label)
                let m = try XCTUnwrap(t.measurement, t.trial.id)
                XCTAssertEqual(m.totalOps, 9970, label)
                // A violation ends a batch of timed operations; the operation
                // that ended it is recorded all the same.
                if sample == "1" { XCTAssertEqual(m.latency?.count, 9970, label) }
            }
            // Each operation asked for the sections its steps name, and for no other.
            let label = "one_step \(oneStep) kernel \(kernel) access \(access) sample \(sample)"
            let (reads, writes): (Int, Int) = switch (oneStep, access) {
            case (false, _): (9970, 9970)
            case (true, "read"): (9970, 0)
            case (true, "write"): (0, 9970)
            case (true, "nested"): (0, 2 * 9970)
            default: (0, 0)
            }
            XCTAssertEqual(CountingLockStrategy.reads.load(ordering: .relaxed), reads, label)
            XCTAssertEqual(CountingLockStrategy.writes.load(ordering: .relaxed), writes, label)
        }
    }

    /// A kernel step (the counter's) runs in a loop compiled for the kernel and
    /// the strategy: it must count what the general loop counts, under every
    /// built-in blocking strategy and a custom one, for every kind of access
    /// the counter has (a write, a read, the lock-free form's unguarded step),
    /// with every operation timed, some, or `auto`. With every operation timed
    /// (in batches, each operation recorded one late, on the CPU's counter; one
    /// at a time on the monotonic clock) each has its service time and, for a
    /// guarded step, its acquire wait, and each worker its stall.
    /// The counter's kernels skip the kernel loop's look at registers 4 and
    /// up per operation (they never write them); a kernel that is not marked
    /// keeps it (the test kernel above writes register 7 and finds it zeroed
    /// at every operation's start).
    func testOnlyKernelsThatLeaveTheExtraRegistersAloneSkipTheirReset() {
        // Asked as the loop asks it, of a generic kernel type.
        func skipsTheLook<K: StepKernel>(_: K.Type) -> Bool { K.self is any FourRegisterKernel.Type }
        XCTAssertTrue(skipsTheLook(CounterWorkload.Add.self))
        XCTAssertTrue(skipsTheLook(CounterWorkload.Guarded<CounterWorkload.Load>.self))
        XCTAssertTrue(skipsTheLook(CounterWorkload.AtomicSplitStore.self))
        XCTAssertFalse(skipsTheLook(EveryNthViolationWorkload.Kernel.self))
        var frame = OpFrame(thread: 0, seed: 1)
        frame[register: 9] = 5
        frame.resetFourRegisters(number: 1)
        XCTAssertEqual(frame[register: 9], 5, "left for the batch's one reset")
        frame.resetExtraRegisters()
        XCTAssertEqual(frame[register: 9], 0)
    }

    func testTheIncrementTakesTheCountersAddressOncePerBatch() {
        // Asked as the loop asks it, of a generic kernel.
        func bindsPerBatch<K: StepKernel>(_ kernel: K) -> Bool { kernel is any BatchBoundKernel }
        XCTAssertTrue(bindsPerBatch(CounterWorkload.Add()))
        XCTAssertFalse(bindsPerBatch(CounterWorkload.Load()))
        let state = CounterWorkload.State(threads: 1)
        var frame = OpFrame(thread: 0, seed: 1)
        let add = CounterWorkload.Add()
        let counter = add.bind(state)
        for _ in 0..<3 { XCTAssertEqual(add.run(bound: counter, &frame), .next) }
        XCTAssertEqual(add.run(state, &frame), .next)
        XCTAssertEqual(state.value.pointee, 4)
    }

    func testKernelLoopCountsWhatTheGeneralLoopCounts() throws {
        var registry = StressRegistry.builtIn
        registry.register(strategy: CountingLockStrategy.self)
        // Not `unsynchronized`: with two workers its counter loses updates, by design.
        let blocking = registry.strategies.filter { $0.descriptor.execution == .threads && $0.descriptor.name != "unsynchronized" }
            .map(\.descriptor.name)
        let runs = [(0.0, "auto", "auto"), (1.0, "100", "auto"), (0.0, "1", "auto"), (1.0, "1", "auto"), (0.0, "1", "monotonic")]
        for (ratio, sample, clock) in runs {
            let report = try PlanRunner.run(yaml: """
                experiments:
                  - workload: counter
                    parameters: { read_ratio: \(ratio) }
                    strategies: [\(blocking.joined(separator: ", "))]
                    threads: 2
                    ops: 5000
                    warmup: 0s
                    timing: {sample: \(sample), clock: \(clock)}
                """, file: "test.yaml", registry: registry)
            XCTAssertEqual(Set(report.trials.map(\.trial.strategy)), Set(blocking))
            for t in report.trials {
                let label = "\(t.trial.id) read_ratio \(ratio) sample \(sample) clock \(clock)"
                // The final check compares the counter with the increments counted.
                XCTAssertEqual(t.outcome, .passed, label)
                let m = try XCTUnwrap(t.measurement, label)
                XCTAssertEqual(m.operations, ratio == 0 ? ["increment": 10000, "read": 0] : ["increment": 0, "read": 10000], label)
                guard sample == "1" else { continue }
                XCTAssertEqual(m.timing?.timedOps, 10000, label)
                XCTAssertEqual(m.latency?.count, 10000, label)
                // No wait to acquire: for the counter's lock-free form (a
                // lock-free strategy), nor for a write handed off to a queue.
                let descriptor = try XCTUnwrap(registry.strategy(named: t.trial.strategy), label).descriptor
                let acquires = !descriptor.lockFree && !(ratio == 0 && descriptor.asynchronousWrites)
                XCTAssertEqual(m.acquireLatency?.count, acquires ? 10000 : nil, label)
                XCTAssertEqual(m.longestGapNanoseconds?.count, 2, label)
                let latency = try XCTUnwrap(m.latency, label)
                XCTAssertGreaterThan(latency.maxNanoseconds, 0, label)
                XCTAssertLessThanOrEqual(latency.p50Nanoseconds, latency.maxNanoseconds, label)
            }
        }
    }

    /// A batch of timed operations ends after 20 µs (so that a stop is seen
    /// soon when every operation is slow): with reads of thousands of pause
    /// hints each, every batch ends that way, after a few operations, and
    /// still every operation is counted and recorded, once.
    func testTimedKernelBatchesOfSlowOperationsEndEarlyAndLoseNothing() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: counter
                parameters: { read_ratio: 1, read_spin: 5000 }
                strategies: [mutex, pthread-mutex, rwlock]
                threads: 2
                ops: 500
                warmup: 0s
                timing: {sample: 1}
            """, file: "test.yaml", registry: .builtIn)
        XCTAssertEqual(report.trials.count, 3)
        for t in report.trials {
            XCTAssertEqual(t.outcome, .passed, t.trial.id)
            let m = try XCTUnwrap(t.measurement, t.trial.id)
            XCTAssertEqual(m.operations, ["increment": 0, "read": 1000], t.trial.id)
            XCTAssertEqual(m.timing?.timedOps, 1000, t.trial.id)
            XCTAssertEqual(m.latency?.count, 1000, t.trial.id)
            XCTAssertEqual(m.acquireLatency?.count, 1000, t.trial.id)
            XCTAssertEqual(m.longestGapNanoseconds?.count, 2, t.trial.id)
        }
    }
}
