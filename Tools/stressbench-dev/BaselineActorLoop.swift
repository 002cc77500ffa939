import Dispatch
import StressKit

/// The hand-written async loop the `actor` strategy is measured against: one
/// task, started on Swift's global executor as the strategy's workers are,
/// awaiting an actor-isolated increment `n` times; timed inside the task, so
/// starting it and waiting for it are not counted.
enum BaselineActorLoop {
    /// The counter's address, handed into the actor. @unchecked: only the
    /// actor's isolated method touches it, one call at a time, and the
    /// caller reads it only after the task has ended.
    struct Counter: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<Int>
    }

    /// The actor, as a team writes one.
    actor Owner {
        func increment(_ counter: Counter) { counter.pointer.pointee &+= 1 }
    }

    /// Runs the loop and returns its elapsed nanoseconds.
    static func time(iterations n: Int, counter: UnsafeMutablePointer<Int>) -> UInt64 {
        let box = Counter(pointer: counter)
        let owner = Owner()
        let done = DispatchSemaphore(value: 0)
        let elapsed = ElapsedBox()
        Task.detached {
            let start = MonotonicClock.now()
            for _ in 0..<n { await owner.increment(box) }
            elapsed.ns = MonotonicClock.now() &- start
            done.signal()
        }
        done.wait()
        return elapsed.ns
    }

    /// Where the task leaves its figure. @unchecked: written once by the task
    /// before it signals, read after the wait.
    final class ElapsedBox: @unchecked Sendable {
        var ns: UInt64 = 0
    }
}
