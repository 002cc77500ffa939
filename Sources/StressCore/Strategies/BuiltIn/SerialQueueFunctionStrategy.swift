/// `serial-queue-f`: the `serial-queue` pattern through libdispatch's C entry
/// point `dispatch_sync_f` (a function pointer and a context) instead of the
/// Swift overlay's `DispatchQueue.sync`.
///
/// Same queue, same semantics, minus the overlay: `DispatchQueue.sync` copies
/// its closure into a heap block on every call on Linux, `dispatch_sync_f` is
/// handed a pointer to the engine's critical section on the caller's stack
/// (`DispatchFunctionQueue`, ``CriticalSection``): no allocation per call.
/// The difference between this and `serial-queue` is what the overlay costs.
/// Not reentrant: a `dispatch_sync_f` onto the queue the thread is already
/// running on deadlocks or traps, exactly as with `sync`. FIFO.
package final class SerialQueueFunctionStrategy: SectionPassingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "serial-queue-f",
        summary: "serial dispatch queue via the C dispatch_sync_f: serial-queue without the Swift overlay's block copy",
        reentrant: false, sharedReads: false, primitive: .queue
    )

    private let queues: ObjectTable<DispatchFunctionQueue>

    public init(setup: StrategySetup) throws {
        queues = ObjectTable(count: setup.resources) { DispatchFunctionQueue(label: "stressbench.serial-queue-f.\($0)", concurrent: false) }
    }

    public func read(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(body) } }

    public func write(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(body) } }

    public func read(_ resource: Int, section: CriticalSection) { queues.withObject(resource) { $0.sync(section) } }

    public func write(_ resource: Int, section: CriticalSection) { queues.withObject(resource) { $0.sync(section) } }
}
