import Dispatch

/// `serial-queue-async`: one serial `DispatchQueue` per resource; writes are
/// fire-and-forget `async` blocks, reads wait with `sync`.
///
/// The "setters async, getters sync" variant of the global-work-queue pattern:
/// a writer does not wait for its write to happen, and because the queue is
/// FIFO a later `sync` read from the same thread still sees it. Each write
/// allocates (its closure and block go to the heap), and the queue keeps
/// accepting writes faster than it may run them: the measured latency of a
/// write is the cost of *submitting* it, and ops/s counts submissions, while
/// the backlog drains on the queue's thread (before final checks, ``quiesce()``
/// waits for it). Not reentrant: a nested `sync` onto the queue deadlocks or
/// traps. FIFO.
///
/// The queues are ``StressQueue``s, used as their `DispatchQueue`s while
/// free-running (so nothing changes there); under controlled scheduling
/// through the wrapper, whose `async` blocks the schedule's queue workers
/// run and whose `sync` waits its turn behind them.
package final class SerialQueueAsyncStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "serial-queue-async",
        summary: "serial DispatchQueue: writes via async (fire-and-forget), reads via sync",
        reentrant: false, sharedReads: false, asynchronousWrites: true, primitive: .queue
    )

    private let queues: ObjectTable<StressQueue>

    public init(setup: StrategySetup) throws {
        queues = ObjectTable(count: setup.resources) { StressQueue(label: "stressbench.serial-queue-async.\($0)") }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) {
        queues.withObject(resource) { queue in
            if Participation.controlled != nil { queue.sync(execute: body) } else { queue.underlying.sync(execute: body) }
        }
    }

    /// A synchronous write, used for nested writes (which cannot be deferred).
    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) { read(resource, body) }

    public func submitWrite(_ resource: Int, _ body: @escaping @Sendable () -> Void) {
        queues.withObject(resource) { queue in
            if Participation.controlled != nil { queue.async(execute: body) } else { queue.underlying.async(execute: body) }
        }
    }

    /// An empty `sync` on each queue returns once everything submitted before it has run.
    public func quiesce() {
        for queue in queues.all { queue.underlying.sync {} }
    }
}
