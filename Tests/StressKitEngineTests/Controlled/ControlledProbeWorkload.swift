import Dispatch
import Foundation
@testable import StressCore
import Synchronization

/// Code written against the harness-aware primitives, in the shapes that
/// controlled scheduling must model: `shape` picks one.
/// - `primitives`: every primitive guarding one critical section each, with
///   a check that nobody else is inside (correct: never a violation);
/// - `handoff`: a producer and a consumer on a condition over a lock;
/// - `handoff-if`: the same, but the consumer waits in an `if`, not a
///   `while` (wrong only when a wait ends with no signal);
/// - `timed-wait`: a condition wait with a 60 s deadline nobody signals;
/// - `livelock`: every worker spins on a flag that nobody sets;
/// - `async`: blocks submitted with `async` (they escape control);
/// - `relock`: a plain lock taken twice by one worker;
/// - `lock-order`: two locks taken in opposite orders;
/// - `plain-lock`: a Foundation `NSLock` the harness cannot see, held
///   across a fuzz point (its waiters block in the kernel);
/// - `bounded-buffer`: one lock and two conditions over it (not empty, not
///   full), producers on even workers, consumers on odd ones;
/// - `specific`: a queue marked with `setSpecific`, read back inside its block;
/// - `partial-lock-order`: workers 0 and 1 take two locks in opposite
///   orders while the others go on with a third.
struct ControlledProbeWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "test-controlled-probe", summary: "harness-aware primitives in the shapes controlled scheduling models",
        parameters: [.choice("shape", "what the workers do", default: "primitives",
                             choices: ["primitives", "handoff", "handoff-if", "timed-wait", "livelock", "async", "relock", "lock-order", "plain-lock",
                                      "bounded-buffer", "specific", "partial-lock-order"])])

    final class State: @unchecked Sendable {
        // @unchecked: the primitives under test guard every field; `inside`
        // counts who is inside each section, to check they exclude.
        let lock = StressLock(name: "probe.lock")
        let other = StressLock(name: "probe.other")
        let condition = StressCondition(name: "probe.condition")
        let semaphore = StressSemaphore(value: 1, name: "probe.semaphore")
        let mutex = StressMutex(0, name: "probe.mutex")
        let once = StressOnce(name: "probe.once")
        let serial = StressQueue(label: "probe.serial")
        let concurrent = StressQueue(label: "probe.concurrent", attributes: .concurrent)
        /// Workers inside each section (indexed by its name's place in ``sections``).
        /// (Plain integers: under control one worker runs at a time.)
        var inside = [Int](repeating: 0, count: 9)
        static let sections = ["lock", "condition", "semaphore", "mutex", "serial", "barrier", "try", "recursive"]
        let flag = Atomic<Bool>(false)
        let plain = NSLock()
        let recursive = StressRecursiveLock(name: "probe.recursive")
        let bufferLock = StressLock(name: "probe.buffer")
        lazy var notEmpty = StressCondition(lock: bufferLock, name: "probe.notEmpty")
        lazy var notFull = StressCondition(lock: bufferLock, name: "probe.notFull")
        let marker = DispatchSpecificKey<Int>()
        var items = 0
        var timedOut = 0

        /// One worker inside a section: a violation message when another is too.
        func enter(_ section: String) -> String? {
            let i = Self.sections.firstIndex(of: section) ?? 8
            let before = inside[i]
            inside[i] += 1
            fuzzPoint()
            inside[i] -= 1
            return before == 0 ? nil : "\(before) other worker(s) inside \(section), which excludes"
        }
    }

    let shape: String
    init(parameters: WorkloadParameters) throws { shape = try parameters.text("shape") }
    func makeState(threads: Int) -> State { State() }

    func operations() -> [StressOperation<State>] {
        let shape = self.shape
        return [StressOperation("probe", weight: 1, steps: [
            .unguarded("call") { s, frame in
                switch shape {
                case "primitives":
                    var problem: String?
                    s.lock.withLock { problem = problem ?? s.enter("lock") }
                    s.condition.withLock { problem = problem ?? s.enter("condition") }
                    s.semaphore.wait(); problem = problem ?? s.enter("semaphore"); s.semaphore.signal()
                    s.mutex.withLock { _ in problem = problem ?? s.enter("mutex") }
                    s.once.run { fuzzPoint() }
                    s.serial.sync { problem = problem ?? s.enter("serial") }
                    s.concurrent.sync(flags: .barrier) { problem = problem ?? s.enter("barrier") }
                    s.recursive.withLock { s.recursive.withLock { problem = problem ?? s.enter("recursive") } }
                    if s.lock.try() {
                        problem = problem ?? s.enter("try")
                        s.lock.unlock()
                    }
                    return problem.map { .violation($0) } ?? .next
                case "handoff":
                    s.condition.lock()
                    defer { s.condition.unlock() }
                    if frame.thread == 0 {
                        s.items += 1
                        s.condition.signal()
                    } else {
                        while s.items == 0 { s.condition.wait() }
                        s.items -= 1
                    }
                    return .next
                case "handoff-if":
                    s.condition.lock()
                    defer { s.condition.unlock() }
                    if frame.thread == 0 {
                        s.items += 1
                        s.condition.signal()
                        return .next
                    }
                    if s.items == 0 { s.condition.wait() }
                    guard s.items > 0 else { return .violation("woke with nothing to take (an if, not a while)") }
                    s.items -= 1
                    return .next
                case "timed-wait":
                    s.condition.lock()
                    let signalled = s.condition.wait(untilNanoseconds: DispatchTime.now().uptimeNanoseconds + 60_000_000_000)
                    if !signalled { s.timedOut += 1 }
                    s.condition.unlock()
                    return signalled ? .violation("a wait nobody signals returned signalled") : .next
                case "livelock":
                    while !s.flag.load(ordering: .relaxed) { fuzzPoint() }
                    return .next
                case "async":
                    s.serial.async { _ = s.flag.load(ordering: .relaxed) }
                    return .next
                case "main-handoff":
                    // Correct main-thread hand-offs: a `sync` to main with
                    // nothing held, and an `async` whose block takes a lock
                    // the workers take too (never across a hand-off).
                    var problem: String?
                    StressQueue.main.sync {
                        if !Thread.isMainThread { problem = "a main-queue block ran off the main thread" }
                        problem = problem ?? s.enter("main")
                        s.lock.withLock { s.items += 1 }
                    }
                    StressQueue.main.async { s.lock.withLock { s.items += 1 } }
                    s.lock.withLock { problem = problem ?? s.enter("lock") }
                    return problem.map { .violation($0) } ?? .next
                case "main-plain-lock":
                    // The main thread's block takes a lock the harness cannot
                    // see, which a worker holds across a point.
                    if frame.thread == 0 { StressQueue.main.async { s.plain.withLock { s.items += 1 } } }
                    s.plain.lock()
                    fuzzPoint()
                    s.items += 1
                    s.plain.unlock()
                    return .next
                case "plain-lock":
                    s.plain.lock()
                    fuzzPoint()
                    s.items += 1
                    s.plain.unlock()
                    return .next
                case "bounded-buffer":
                    s.bufferLock.lock()
                    defer { s.bufferLock.unlock() }
                    if frame.thread % 2 == 0 {
                        while s.items == 2 { s.notFull.wait() }
                        s.items += 1
                        s.notEmpty.signal()
                    } else {
                        while s.items == 0 { s.notEmpty.wait() }
                        s.items -= 1
                        s.notFull.signal()
                    }
                    return s.items < 0 || s.items > 2 ? .violation("the buffer holds \(s.items)") : .next
                case "specific":
                    s.serial.setSpecific(key: s.marker, value: 7)
                    let seen = s.serial.sync { StressQueue.getSpecific(key: s.marker) }
                    return seen == 7 ? .next : .violation("the queue's specific read back as \(String(describing: seen))")
                case "partial-lock-order":
                    if frame.thread >= 2 {
                        s.recursive.withLock { fuzzPoint() }
                        return .next
                    }
                    let (first, second) = frame.thread == 0 ? (s.lock, s.other) : (s.other, s.lock)
                    first.lock()
                    fuzzPoint()
                    second.lock()
                    second.unlock()
                    first.unlock()
                    return .next
                case "relock":
                    s.lock.lock()
                    s.lock.lock()
                    s.lock.unlock()
                    s.lock.unlock()
                    return .next
                default:
                    let (first, second) = frame.thread % 2 == 0 ? (s.lock, s.other) : (s.other, s.lock)
                    first.lock()
                    fuzzPoint()
                    second.lock()
                    second.unlock()
                    first.unlock()
                    return .next
                }
            },
        ])]
    }
}
