import Dispatch

/// `rw-queue-async`: a concurrent `DispatchQueue` per resource; reads through
/// `sync`, writes as fire-and-forget `async(flags: .barrier)` blocks.
///
/// The reader-writer queue as most Swift and Objective-C code writes it
/// (`dispatch_barrier_async` setters, `dispatch_sync` getters): readers overlap,
/// a barrier block runs alone once the readers ahead of it finish, and a read
/// submitted after a write sees it. As with `serial-queue-async`, a write's
/// latency is the cost of submitting it and each write allocates; ``quiesce()``
/// drains the queue before final checks. Not reentrant: a nested barrier sync
/// from inside the queue deadlocks.
///
/// The queues are ``StressQueue``s, used as their `DispatchQueue`s while
/// free-running; under controlled scheduling through the wrapper, whose
/// barrier blocks the schedule's queue workers run once the readers ahead
/// of them are done.
package final class RWQueueAsyncStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "rw-queue-async",
        summary: "concurrent DispatchQueue: reads via sync, writes via async(flags: .barrier)",
        reentrant: false, sharedReads: true, asynchronousWrites: true, primitive: .queue
    )

    private let queues: ObjectTable<StressQueue>

    public init(setup: StrategySetup) throws {
        queues = ObjectTable(count: setup.resources) {
            StressQueue(label: "stressbench.rw-queue-async.\($0)", attributes: .concurrent)
        }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) {
        queues.withObject(resource) { queue in
            if Participation.controlled != nil { queue.sync(execute: body) } else { queue.underlying.sync(execute: body) }
        }
    }

    /// A synchronous barrier write, used for nested writes (which cannot be deferred).
    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        queues.withObject(resource) { queue in
            if Participation.controlled != nil {
                queue.sync(flags: .barrier, execute: body)
            } else {
                queue.underlying.sync(flags: .barrier, execute: body)
            }
        }
    }

    public func submitWrite(_ resource: Int, _ body: @escaping @Sendable () -> Void) {
        queues.withObject(resource) { queue in
            if Participation.controlled != nil {
                queue.async(flags: .barrier, execute: body)
            } else {
                queue.underlying.async(flags: .barrier, execute: body)
            }
        }
    }

    /// An empty barrier `sync` returns once everything submitted before it has run.
    public func quiesce() {
        for queue in queues.all { queue.underlying.sync(flags: .barrier) {} }
    }
}
