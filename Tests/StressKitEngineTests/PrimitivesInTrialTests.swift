import CStressSupport
import Dispatch
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// One worker calling each harness-aware primitive inside a trial, counting
/// the fuzz points each call passes through its worker's fuzzer. With
/// `queues: false` it leaves out the queues, whose Swift `DispatchQueue.sync`
/// underneath allocates on its own (docs/own-code.md, Measured), so that the
/// allocation count is the wrappers' alone; with `timed_wait: false`, the
/// condition wait that times out, which spends about 30 µs in the kernel: the
/// count is the process's, and the watchdog's thread allocates at a rate in
/// time (about 2,300 a second in the debug build), so slow operations would
/// drown the signal.
private struct WrapperProbeWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "test-wrapper-probe", summary: "every wrapper's fuzz points and allocations inside a trial",
        parameters: [.flag("queues", "also call the queue wrappers", default: true), .flag("timed_wait", "also time out a condition wait (about 30 µs in the kernel)", default: true)])

    final class State: @unchecked Sendable {
        // @unchecked: one worker only; the wrappers under test guard `count`.
        let lock = StressLock(name: "probe.lock")
        let condition = StressCondition(name: "probe.condition")
        let semaphore = StressSemaphore(value: 1, name: "probe.semaphore")
        let signal = StressSemaphore(value: 0, name: "probe.signal")
        let mutex = StressMutex(0, name: "probe.mutex")
        let once = StressOnce(name: "probe.once")
        let serial = StressQueue(label: "probe.serial")
        let concurrent = StressQueue(label: "probe.concurrent", attributes: .concurrent)
        var count = 0
    }

    let queues: Bool
    let timedWait: Bool
    init(parameters: WorkloadParameters) throws { queues = try parameters.flag("queues"); timedWait = try parameters.flag("timed_wait") }
    func makeState(threads: Int) -> State { State() }

    /// The fuzz points each call must pass (docs/own-code.md: before and
    /// after acquire, before and after release; around wait and signal; at
    /// a submit, a block's entry and its exit).
    static let expected: [(name: String, points: UInt64)] = [
        ("lock/unlock", 4), ("condition lock/unlock", 4), ("condition signal", 2), ("condition broadcast", 2),
        ("condition wait (timed out)", 2), ("semaphore wait/signal", 4), ("signal semaphore signal/wait", 4),
        ("mutex withLock", 4), ("once (done)", 0), ("fuzzPoint()", 1),
        ("serial sync", 4), ("concurrent sync", 4), ("barrier sync", 4),
    ]

    /// Points passed so far by the calling worker's fuzzer.
    static func points() -> UInt64 {
        guard let raw = stress_ambient() else { return .max }
        return AmbientContext.at(raw).pointee.fuzzer.index
    }

    func operations() -> [StressOperation<State>] {
        let timedWait = self.timedWait
        let calls = queues ? Self.expected.count : Self.expected.count - 3
        return [StressOperation("probe", weight: 1, steps: [
            .unguarded("call") { s, _ in
                s.once.run { s.count = 0 }
                // One call at a time, compared as it goes: no array, no
                // closure context, so that the step itself allocates nothing
                // for the allocation test to count.
                for call in 0..<calls {
                    let before = Self.points()
                    switch call {
                    case 0: s.lock.lock(); s.count += 1; s.lock.unlock()
                    case 1: s.condition.lock(); s.count += 1; s.condition.unlock()
                    case 2: s.condition.signal()
                    case 3: s.condition.broadcast()
                    case 4: if timedWait { _ = s.condition.wait(untilNanoseconds: 0) }
                    case 5: s.semaphore.wait(); s.count += 1; s.semaphore.signal()
                    case 6: s.signal.signal(); s.signal.wait()
                    case 7: s.mutex.withLock { $0 += 1 }
                    case 8: s.once.run { s.count = -1 }
                    case 9: fuzzPoint()
                    case 10: s.serial.sync { s.count += 1 }
                    case 11: s.concurrent.sync { _ = s.count }
                    default: s.concurrent.sync(flags: .barrier) { s.count += 1 }
                    }
                    let passed = Self.points() &- before
                    // (The condition's calls are made holding its lock.)
                    if call == 1 { s.condition.lock() }
                    if call == 4 { s.condition.unlock() }
                    if passed != Self.expected[call].points && (timedWait || call != 4) {
                        return .violation("\(Self.expected[call].name): \(passed) points, not \(Self.expected[call].points)")
                    }
                }
                return .next
            },
        ])]
    }
}

/// What the harness-aware primitives do inside a trial, on a worker: the
/// fuzz points each call passes, and that publishing what a worker holds and
/// waits for allocates nothing.
final class PrimitivesInTrialTests: XCTestCase {
    private var registry: StressRegistry {
        var registry = StressRegistry.builtIn
        registry.register(workload: WrapperProbeWorkload.self)
        return registry
    }

    func testEveryWrapperPassesItsFuzzPoints() throws {
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-wrapper-probe
                strategies: [unsynchronized]
                threads: 1
                ops: 200
                warmup: 0s
                fuzz: light
            """, file: "test.yaml", registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        XCTAssertEqual(trial.measurement?.totalOps, 200)
    }

    /// The locks, condition, semaphores, mutex, once-token and `fuzzPoint()`
    /// publish holds and waits and pass their fuzz points without
    /// allocating (one worker: no contention to wake the kernel's or
    /// libdispatch's own allocations).
    func testTheWrappersAllocateNothingInsideATrial() throws {
        #if os(Linux)
        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: test-wrapper-probe
                parameters: { queues: false, timed_wait: false }
                strategies: [unsynchronized]
                threads: 1
                ops: 20k
                warmup: 10ms
                fuzz: light
            """, file: "test.yaml", registry: registry)
        let trial = try XCTUnwrap(report.trials.first)
        XCTAssertEqual(trial.outcome, .passed, WorkloadTestSupport.describe(trial))
        let perOp = try XCTUnwrap(trial.measurement?.allocator?.allocationsPerOp)
        // The count is the whole process's; the watchdog's sampling thread
        // allocates at a rate in time: about 0.02 per operation here (8 µs
        // each in the debug build), ten times that on a machine ten times
        // slower. One wrapper that allocated on each call would add 1.
        XCTAssertLessThan(perOp, 0.5, "the wrappers allocate inside a trial")
        #else
        throw XCTSkip("malloc-interposer replaces malloc by linking on Linux only")
        #endif
    }
}
