import Foundation

/// `recursive-lock`: Foundation's `NSRecursiveLock`, one per resource.
///
/// What Apple-platform code reaches for when a locked method calls another
/// locked method of the same object. On Linux it is swift-corelibs-foundation's
/// class over a `PTHREAD_MUTEX_RECURSIVE` mutex: an owner check and a count on
/// top of `NSLock`'s cost. Reentrant on the owning thread (the nested
/// transaction completes); other threads block. No fairness guarantee.
package final class RecursiveLockStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "recursive-lock",
        summary: "Foundation NSRecursiveLock: reentrant on the owning thread (pthread recursive mutex on Linux)",
        reentrant: true, sharedReads: false
    )

    private let locks: ObjectTable<NSRecursiveLock>

    public init(setup: StrategySetup) throws {
        locks = ObjectTable(count: setup.resources) { _ in NSRecursiveLock() }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) { locks.withObject(resource) { $0.withLock(body) } }
}

extension RecursiveLockStrategy: HoldingStrategy {
    public func acquire(_ resource: Int) { locks.withObject(resource) { $0.lock() } }
    public func release(_ resource: Int) { locks.withObject(resource) { $0.unlock() } }
}
