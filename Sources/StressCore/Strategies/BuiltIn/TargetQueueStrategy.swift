import Dispatch

/// `target-queue`: a serial `DispatchQueue` per resource, all targeting one
/// shared serial queue; every access through `sync`.
///
/// The "global work queue with target queues" pattern (Firebase and other SDKs
/// give each component its own labelled queue and point them all at one work
/// queue): the per-resource queues keep their own order and labels, the shared
/// target serialises everything, so two resources never run at once even
/// though they have separate queues. The extra queue hop is the cost. With one
/// resource (as `counter` and `bank` have) it degenerates to `serial-queue`
/// plus that hop. Not reentrant, and more deadlock-prone than it looks: a
/// `sync` from one resource's queue to *another* resource's queue also
/// deadlocks, because both drain on the same target. FIFO per queue.
package final class TargetQueueStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "target-queue",
        summary: "a serial queue per resource, all targeting one shared serial queue (the Firebase pattern); sync",
        reentrant: false, sharedReads: false, primitive: .queue, singleDomain: true
    )

    private let target: DispatchQueue
    private let queues: ObjectTable<DispatchQueue>

    public init(setup: StrategySetup) throws {
        let target = DispatchQueue(label: "stressbench.target-queue.shared")
        self.target = target
        queues = ObjectTable(count: setup.resources) { DispatchQueue(label: "stressbench.target-queue.\($0)", target: target) }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(execute: body) } }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) { queues.withObject(resource) { $0.sync(execute: body) } }
}
