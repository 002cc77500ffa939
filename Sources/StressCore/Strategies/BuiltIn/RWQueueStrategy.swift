import Dispatch

/// `rw-queue`: a concurrent `DispatchQueue` per resource; reads through `sync`,
/// writes through `sync(flags: .barrier)` (the reader-writer queue pattern).
///
/// Readers run in parallel with each other; a barrier write waits for the readers
/// ahead of it and runs alone. Not reentrant: a barrier `sync` from inside the
/// queue deadlocks. Submission order is kept between barriers.
///
/// Which overloads of the Swift overlay: reads the non-generic
/// `sync(execute:)` for a `Void` closure; writes the generic
/// `sync<T>(flags:execute:)` (with `T` = `Void`), the overlay's only form that
/// takes flags. Both copy the block to the heap on each call on Linux.
package final class RWQueueStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "rw-queue",
        summary: "concurrent DispatchQueue: reads via sync, writes via sync(flags: .barrier)",
        reentrant: false, sharedReads: true, primitive: .queue
    )

    private let queues: ObjectTable<DispatchQueue>

    public init(setup: StrategySetup) throws {
        queues = ObjectTable(count: setup.resources) {
            DispatchQueue(label: "stressbench.rw-queue.\($0)", attributes: .concurrent)
        }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(execute: body) } }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        queues.withObject(resource) { $0.sync(flags: .barrier, execute: body) }
    }
}
