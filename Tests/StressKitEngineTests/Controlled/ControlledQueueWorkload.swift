import Dispatch
import Synchronization
@testable import StressCore

/// Work submitted with `StressQueue.async`, in the shapes library code has
/// (setters `async`, getters `sync`, a closed loop that drains the queue):
/// `shape` picks one. Each worker counts the writes it submitted and the
/// blocks count those that ran, per worker.
/// - `closed-loop`: a serial queue; each operation submits an increment with
///   `async`, then reads its count back with `sync` (correct: FIFO makes the
///   read see the write);
/// - `barrier-loop`: the same on a concurrent queue, writes as barrier
///   blocks, reads as plain `sync` (correct);
/// - `read-outside`: the increment is submitted with `async`, and the count
///   is read without going through the queue (wrong: the block may not have
///   run yet);
/// - `after`: increments submitted with `asyncAfter` a minute ahead, no read
///   (correct once drained: the final check counts them);
/// - `operations`: the closed loop on a serial ``StressQueue/Operations``:
///   `addOperation`, then `waitUntilAllOperationsAreFinished` (correct);
/// - `operations-unwaited`: the same, reading without waiting (wrong);
/// - `report-in-block`: a block reports a violation (`reportViolation`) on
///   the queue worker that runs it;
/// - `lock-inversion`: a worker holds a lock while it submits a block that
///   takes the same lock, then waits for the queue with `sync` (a deadlock
///   between the worker and the queue's block);
/// - `main-and-queue`: the main queue and a serial queue together: a
///   main-queue block submits the increment to the queue, a `sync` to main
///   waits for that block, and a `sync` to the queue reads the increment
///   back (correct: first in, first out on both queues); and a block of the
///   queue submits a main-queue block, which submits a barrier block to the
///   concurrent queue that counts too (all drained before the final check).
///   Only where the main thread serves the main queue.
/// - `five-queues`: blocks on five serial queues at once (each its own
///   queue worker), then drained; `nine-queues`: eight queues kept busy
///   while a ninth gets a block, one past the queue workers a trial has (its
///   block runs on a dispatch thread, and the record says why);
/// - `group`: the closed loop with each block in a `DispatchGroup` of the
///   worker's (`async(group:)`): once the `sync` has drained the queue, the
///   group is empty; `group-wait`: the worker waits for its group with
///   `DispatchGroup.wait()`, which blocks outside the model;
/// - `main-after`: increments submitted to ``StressQueue/main`` with
///   `asyncAfter` a minute ahead (drained by the main thread before the
///   final check). Only where the main thread serves the main queue;
/// - `block-escapes`: a queue's block blocks on a plain `DispatchSemaphore`
///   until its submitter, told that the block started, signals it: the
///   queue worker sleeps in the kernel outside any point (one worker: it
///   spins on the flag, a fuzz point each pass, and only the queue worker
///   can be switched to; then it waits for the block's end on a
///   harness-aware semaphore).
/// The final check: every submitted block ran before the trial ended.
struct ControlledQueueWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "test-controlled-queue", summary: "blocks submitted with StressQueue.async, drained by sync",
        parameters: [.choice("shape", "what the workers do", default: "closed-loop",
                             choices: ["closed-loop", "barrier-loop", "read-outside", "after", "operations", "operations-unwaited",
                                      "report-in-block", "lock-inversion", "main-and-queue", "five-queues", "nine-queues",
                                      "group", "group-wait", "main-after", "block-escapes"])])

    final class State: @unchecked Sendable {
        // @unchecked: `applied` is written only by blocks on the queue and
        // read through it (or, in `read-outside`, deliberately not);
        // `submitted[t]` only by worker t. Under control one runs at a time.
        let serial = StressQueue(label: "probe.async-serial")
        let concurrent = StressQueue(label: "probe.async-concurrent", attributes: .concurrent)
        let lock = StressLock(name: "probe.async-lock")
        let operations: StressQueue.Operations = {
            let operations = StressQueue.Operations()
            operations.name = "probe.operations"
            operations.maxConcurrentOperationCount = 1
            return operations
        }()
        var applied: [Int]
        var submitted: [Int]
        /// The blocks that ran at the end of a queue-to-main-to-queue chain (`main-and-queue`).
        var viaMain: [Int]
        /// Serial queues for `five-queues` and `nine-queues`.
        let many = (0..<9).map { StressQueue(label: "probe.queue-\($0)") }
        /// Each worker's group (`group`, `group-wait`).
        let groups: [DispatchGroup]

        init(threads: Int) {
            applied = Array(repeating: 0, count: threads)
            submitted = Array(repeating: 0, count: threads)
            viaMain = Array(repeating: 0, count: threads)
            groups = (0..<threads).map { _ in DispatchGroup() }
        }
    }

    /// A block's word to its submitter that it started, and the plain
    /// semaphore it then blocks on (`block-escapes`).
    final class Handshake: Sendable {
        let started = Atomic<Bool>(false)
        let go = DispatchSemaphore(value: 0)
        let done = StressSemaphore(value: 0, name: "probe.block-done")
    }

    let shape: String
    init(parameters: WorkloadParameters) throws { shape = try parameters.text("shape") }
    func makeState(threads: Int) -> State { State(threads: threads) }

    func operations() -> [StressOperation<State>] {
        let shape = self.shape
        return [StressOperation("submit", weight: 1, steps: [
            .unguarded("call") { s, frame in
                let t = frame.thread
                s.submitted[t] += 1
                let expected = s.submitted[t]
                switch shape {
                case "closed-loop":
                    s.serial.async { s.applied[t] += 1 }
                    let seen = s.serial.sync { s.applied[t] }
                    return seen == expected ? .next : .violation("sync read \(seen) after \(expected) writes submitted before it")
                case "barrier-loop":
                    s.concurrent.async(flags: .barrier) { s.applied[t] += 1 }
                    let seen = s.concurrent.sync { s.applied[t] }
                    return seen == expected ? .next : .violation("sync read \(seen) after \(expected) writes submitted before it")
                case "read-outside":
                    s.serial.async { s.applied[t] += 1 }
                    fuzzPoint()
                    let seen = s.applied[t]
                    return seen == expected ? .next : .violation("read \(seen) outside the queue after \(expected) writes submitted")
                case "operations", "operations-unwaited":
                    s.operations.addOperation { s.applied[t] += 1 }
                    if shape == "operations" { s.operations.waitUntilAllOperationsAreFinished() } else { fuzzPoint() }
                    let seen = s.applied[t]
                    return seen == expected ? .next : .violation("read \(seen) after \(expected) operations added")
                case "report-in-block":
                    s.serial.async {
                        s.applied[t] += 1
                        reportViolation("reported from a block of the queue")
                    }
                    return .next
                case "main-and-queue":
                    StressQueue.main.async { s.serial.async { s.applied[t] += 1 } }
                    StressQueue.main.sync {}
                    let seen = s.serial.sync { s.applied[t] }
                    s.serial.async { StressQueue.main.async { s.concurrent.async(flags: .barrier) { s.viaMain[t] += 1 } } }
                    return seen == expected ? .next : .violation("sync read \(seen) after \(expected) writes submitted through main")
                case "lock-inversion":
                    s.lock.lock()
                    s.serial.async { s.lock.withLock { s.applied[t] += 1 } }
                    s.serial.sync {}
                    s.lock.unlock()
                    return .next
                case "five-queues":
                    // Five queues busy at once (the first block counts).
                    for i in 0..<5 { s.many[i].async { if i == 0 { s.applied[t] += 1 } } }
                    for i in 0..<5 { s.many[i].sync {} }
                    let seen = s.many[0].sync { s.applied[t] }
                    return seen == expected ? .next : .violation("sync read \(seen) after \(expected) writes submitted before it")
                case "nine-queues":
                    // Eight queues kept busy (their blocks wait for the
                    // gate) when the ninth gets a block, which then finds no
                    // queue worker: it touches nothing, as it runs free.
                    let gate = StressSemaphore(value: 0, name: "probe.gate")
                    for i in 0..<8 {
                        s.many[i].async {
                            gate.wait()
                            if i == 0 { s.applied[t] += 1 }
                        }
                    }
                    s.many[8].async {}
                    for _ in 0..<8 { gate.signal() }
                    for queue in s.many { queue.sync {} }
                    let seen = s.many[0].sync { s.applied[t] }
                    return seen == expected ? .next : .violation("sync read \(seen) after \(expected) writes submitted before it")
                case "group", "group-wait":
                    s.serial.async(group: s.groups[t]) { s.applied[t] += 1 }
                    if shape == "group-wait" {
                        s.groups[t].wait()
                        return .next
                    }
                    let seen = s.serial.sync { s.applied[t] }
                    guard s.groups[t].wait(timeout: .now()) == .success else { return .violation("the group was not left after its block ran") }
                    return seen == expected ? .next : .violation("sync read \(seen) after \(expected) writes submitted before it")
                case "main-after":
                    StressQueue.main.asyncAfter(deadline: .now() + 60) { s.applied[t] += 1 }
                    return .next
                case "block-escapes":
                    let handshake = Handshake()
                    s.serial.async {
                        handshake.started.store(true, ordering: .releasing)
                        handshake.go.wait()
                        s.applied[t] += 1
                        handshake.done.signal()
                    }
                    while !handshake.started.load(ordering: .acquiring) { fuzzPoint() }
                    handshake.go.signal()
                    // Modelled: while the block runs uncontrolled, no
                    // decision is made (a spin here would use them up).
                    handshake.done.wait()
                    return .next
                default:
                    s.serial.asyncAfter(deadline: .now() + 60) { s.applied[t] += 1 }
                    return .next
                }
            },
        ])]
    }

    func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        if state.applied != state.submitted { return ["blocks ran \(state.applied), submitted \(state.submitted): not drained"] }
        if shape == "main-and-queue", state.viaMain != state.submitted {
            return ["chained blocks ran \(state.viaMain), submitted \(state.submitted): not drained"]
        }
        return []
    }
}
