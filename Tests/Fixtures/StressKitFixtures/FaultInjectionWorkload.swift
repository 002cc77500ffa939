#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Dispatch
import StressKit
import Synchronization

/// `_fault` (hidden; a test fixture): injects a failure into one trial so the harness's own
/// isolation can be tested: a runtime trap (with a message, or an
/// arithmetic overflow's bare one), a hang, an abrupt exit, a SIGKILL,
/// garbage on the result channel, inside a critical section or outside any; a
/// self-deadlock on a plain pthread mutex the harness does not see (as a
/// team's own `NSLock` taken twice, not interposed); a
/// process that stops itself (SIGSTOP: nothing in it runs, not even the
/// watchdog); a non-zero exit after the record was written.
/// Worker 0 fires it at its `after_ops`-th operation; the others keep working (or
/// block on the lock the faulty worker holds, as a real program would). Mode
/// `lock-order` instead makes every worker lock two resources in an order that
/// depends on its parity: the classic lock-order inversion; `partial-lock-order`
/// does that with workers 0 and 1 only, while the others go on counting
/// outside any lock (a deadlock of some workers while the rest progress).
/// Modes `await-self` and `await-cycle` stall every async worker for good at
/// its `after_ops`-th operation: each awaits a task that awaits its own value,
/// or all await one of two tasks that await each other (the task watchdog's
/// deadlocks without a continuation). Mode `nap` keeps worker 0's thread
/// off the CPU for 1.5 s once (a kernel sleep: what a thread the OS does not
/// run on a loaded machine looks like), then goes on: correct code, never a
/// stall; mode `block` does that for good (blocked in the kernel). Mode
/// `slow-callback` makes worker 0 await a callback that a `DispatchQueue`'s
/// thread, outside the harness executor, delivers after keeping the CPU for
/// 1.5 s (what a callback thread the OS runs late on a loaded machine looks
/// like to the executor): correct code, never a stall.
public struct FaultInjectionWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "_fault",
        summary: "fault injection for the harness's own tests: trap, hang, exit or kill one worker; deadlock or stall them",
        parameters: [
            .choice("mode", "what goes wrong", default: "none",
                    choices: ["none", "trap", "overflow", "hang", "self-deadlock", "exit", "kill", "garbage", "lock-order", "partial-lock-order", "stop", "exit-after-record",
                              "await-self", "await-cycle", "nap", "block", "slow-callback"]),
            .choice("where", "inside the critical section, outside any, or in an async step after an await",
                    default: "critical-section", choices: ["critical-section", "outside", "await"]),
            .integer("after_ops", "worker 0's op number at which the fault fires (every worker's, for await-self and await-cycle)",
                     default: 1_000, range: 0...Int.max),
        ],
        hidden: true
    )

    /// A counter to work on, and a flag a hang spins on so the loop has a side effect.
    public final class State: Sendable {
        let counter = Atomic<Int>(0)
        let release = Atomic<Bool>(false)
        /// The lock `self-deadlock` takes twice.
        let unseen = UnseenMutex()
        /// `await-cycle`'s two tasks, made by the first worker to get there.
        let cycle = Mutex<(Task<Void, Never>, Task<Void, Never>)?>(nil)
    }

    /// A task's own handle, for a task that awaits itself: set once it exists.
    final class TaskHandle: Sendable {
        private let task = Mutex<Task<Void, Never>?>(nil)
        func set(_ t: Task<Void, Never>) { task.withLock { $0 = t } }
        /// The handle, once set (the task may start before it is).
        func get() async -> Task<Void, Never> {
            while true {
                if let t = task.withLock({ $0 }) { return t }
                await Task.yield()
            }
        }
    }

    let mode: String
    let inside: Bool
    let awaits: Bool
    let afterOps: Int

    public init(parameters: WorkloadParameters) throws {
        mode = try parameters.text("mode")
        inside = try parameters.text("where") == "critical-section"
        awaits = try parameters.text("where") == "await"
        afterOps = try parameters.integer("after_ops")
    }

    public var resourceCount: Int { mode.hasSuffix("lock-order") ? 2 : 1 }

    public func makeState(threads: Int) -> State { State() }

    public func operations() -> [StressOperation<State>] {
        let mode = self.mode, afterOps = self.afterOps
        let fire: @Sendable (State, OpFrame) -> Void = { state, frame in
            guard frame.thread == 0, frame.opNumber == afterOps else { return }
            switch mode {
            case "trap": fatalError("injected trap at op #\(afterOps)")
            case "overflow":
                // A check of the language's that traps with no message, in
                // a debug build as in a release one.
                var count = Int.max - Int(frame.opNumber - afterOps)
                count += Int(frame.thread) + 1
                state.counter.store(count, ordering: .relaxed)
            case "hang":
                // An endless loop, as a real one spins: the CPU all the time
                // (a loop of yields gets almost none on a loaded machine, and
                // would look like a thread the OS does not run).
                var spins = 0
                while !state.release.load(ordering: .relaxed) {
                    spins &+= 1
                    if spins & 0xFFFF == 0 { sched_yield() } else { stress_cpu_relax() }
                }
            case "self-deadlock":
                // Blocked in the kernel for good, where the harness cannot see.
                state.unseen.lock()
                state.unseen.lock()
            case "nap": usleep(1_500_000)
            case "block":
                while !state.release.load(ordering: .relaxed) { usleep(100_000) }
            case "exit": exit(7)
            case "kill": raise(SIGKILL)
            case "stop":
                // The whole process freezes, its watchdog too: only the parent's
                // timeout can end it.
                raise(SIGSTOP)
            case "exit-after-record":
                // The trial finishes and writes its record; then its exit turns
                // into a failure, as a crash in an exit handler would.
                atexit { _exit(5) }
            case "garbage":
                // What a child that prints junk instead of its record looks like.
                let junk = Array("this is not a result record\n".utf8)
                _ = junk.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
                _exit(0)
            default: break
            }
        }
        if mode.hasSuffix("lock-order") {
            // Even workers lock 0 then 1, odd workers 1 then 0 (partially:
            // only workers 0 and 1; the others only count).
            let partial = mode == "partial-lock-order"
            let count: Step<State> = .unguarded("count") { state, _ in
                state.counter.add(1, ordering: .relaxed)
                return .next
            }
            return [
                StressOperation("forward", weight: 1, steps: [
                    .unguarded("pick") { _, frame in frame.thread % 2 == 0 && !(partial && frame.thread > 1) ? .next : .finish },
                    .nestedWrite("lock 0 then 1", outer: 0, inner: 1) { _, _ in .next }, count,
                ]),
                StressOperation("backward", weight: 1, steps: [
                    .unguarded("pick") { _, frame in frame.thread % 2 == 1 && !(partial && frame.thread > 1) ? .next : .finish },
                    .nestedWrite("lock 1 then 0", outer: 1, inner: 0) { _, _ in .next }, count,
                ]),
                StressOperation("count", weight: partial ? 1 : 0, steps: [count]),
            ]
        }
        if mode == "slow-callback" {
            return [StressOperation("work", weight: 1, steps: [
                .awaiting("await") { state, frame in
                    if frame.thread == 0 && frame.opNumber == afterOps {
                        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                            DispatchQueue(label: "slow-callback").async {
                                // Runs (or waits for a CPU) all along: never asleep in the kernel.
                                let end = DispatchTime.now().uptimeNanoseconds + 1_500_000_000
                                while DispatchTime.now().uptimeNanoseconds < end { stress_cpu_relax() }
                                done.resume()
                            }
                        }
                    }
                    state.counter.add(1, ordering: .relaxed)
                    return .next
                },
            ])]
        }
        if mode == "await-self" || mode == "await-cycle" {
            let cycle = mode == "await-cycle"
            return [StressOperation("work", weight: 1, steps: [
                .awaiting("await") { state, frame in
                    if frame.opNumber == afterOps {
                        if cycle {
                            let (first, _) = state.cycle.withLock { pair in
                                if let pair { return pair }
                                let a = TaskHandle(), b = TaskHandle()
                                let ta = Task { await b.get().value }
                                let tb = Task { await a.get().value }
                                a.set(ta)
                                b.set(tb)
                                pair = (ta, tb)
                                return (ta, tb)
                            }
                            await first.value  // waits for the task that waits for the other, which waits for it
                        } else {
                            let me = TaskHandle()
                            let task = Task { await me.get().value }  // a task that awaits its own value
                            me.set(task)
                            await task.value
                        }
                    }
                    state.counter.add(1, ordering: .relaxed)
                    return .next
                },
            ])]
        }
        if awaits {
            // The fault in a job of the worker's task, after a suspension.
            return [StressOperation("work", weight: 1, steps: [
                .awaiting("work") { state, frame in
                    await Task.yield()
                    fire(state, frame)
                    state.counter.add(1, ordering: .relaxed)
                    return .next
                },
            ])]
        }
        let work: Step<State> = inside
            ? .write("work") { state, frame in
                fire(state, frame)
                state.counter.add(1, ordering: .relaxed)
                return .next
            }
            : .unguarded("work") { state, frame in
                fire(state, frame)
                state.counter.add(1, ordering: .relaxed)
                return .next
            }
        return [StressOperation("work", weight: 1, steps: [work])]
    }
}
