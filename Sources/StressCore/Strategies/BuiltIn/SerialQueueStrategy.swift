import Dispatch

/// `serial-queue`: one serial `DispatchQueue` per resource, every access through
/// `sync` (the "global work queue" pattern of GCD-era libraries).
///
/// Goes through the Swift overlay's non-generic `DispatchQueue.sync(execute:)`
/// for a `Void` closure (the engine's bodies return nothing, so never the
/// generic, value-returning `sync<T>(execute:)`, which costs about twice as
/// much), which on Linux copies the block to the heap on each call. Not reentrant: a `sync` onto the queue you
/// are already running on deadlocks, and libdispatch traps on some of those
/// ("dispatch_sync called on queue already owned by current thread"). FIFO:
/// blocks run in the order they were submitted.
package final class SerialQueueStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "serial-queue",
        summary: "serial DispatchQueue, all access via sync (the 'global work queue' pattern)",
        reentrant: false, sharedReads: false, primitive: .queue
    )

    private let queues: ObjectTable<DispatchQueue>

    public init(setup: StrategySetup) throws {
        queues = ObjectTable(count: setup.resources) { DispatchQueue(label: "stressbench.serial-queue.\($0)") }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(execute: body) } }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(execute: body) } }
}
