/// `rw-queue-f`: the `rw-queue` pattern through libdispatch's C entry points:
/// reads with `dispatch_sync_f`, writes with `dispatch_barrier_sync_f` on a
/// concurrent queue.
///
/// Same semantics as `rw-queue` (readers overlap, a barrier write waits for the
/// readers ahead of it and runs alone), without the Swift overlay's per-call
/// heap block (`DispatchFunctionQueue`); the overlay's barrier path is the
/// costlier of the two, so the gap to `rw-queue` is wider than between
/// `serial-queue` and `serial-queue-f`. Not reentrant: a barrier sync from
/// inside the queue is a sync onto the queue the thread is already on, which
/// libdispatch traps (the trial is recorded as `crashed`).
package final class RWQueueFunctionStrategy: SectionPassingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "rw-queue-f",
        summary: "concurrent dispatch queue via the C dispatch_sync_f / dispatch_barrier_sync_f (rw-queue without the overlay)",
        reentrant: false, sharedReads: true, primitive: .queue
    )

    private let queues: ObjectTable<DispatchFunctionQueue>

    public init(setup: StrategySetup) throws {
        queues = ObjectTable(count: setup.resources) { DispatchFunctionQueue(label: "stressbench.rw-queue-f.\($0)", concurrent: true) }
    }

    public func read(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(body) } }

    public func write(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.barrierSync(body) } }

    public func read(_ resource: Int, section: CriticalSection) { queues.withObject(resource) { $0.sync(section) } }

    public func write(_ resource: Int, section: CriticalSection) { queues.withObject(resource) { $0.barrierSync(section) } }
}
