import Foundation

/// `nslock`: Foundation's `NSLock`, one per resource.
///
/// The lock most Swift code on Apple platforms reaches for first. On Linux it is
/// swift-corelibs-foundation's class over a pthread mutex, so each call is an
/// Objective-C-style method call plus the mutex. Not reentrant: a second `lock()`
/// on the owning thread never returns. No fairness guarantee.
package final class NSLockStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "nslock",
        summary: "Foundation NSLock: the everyday Apple-platform lock (pthread mutex underneath on Linux)",
        reentrant: false, sharedReads: false
    )

    private let locks: ObjectTable<NSLock>

    public init(setup: StrategySetup) throws {
        locks = ObjectTable(count: setup.resources) { _ in NSLock() }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        locks.withObject(resource) { lock in
            lock.lock()
            defer { lock.unlock() }
            body()
        }
    }
}

extension NSLockStrategy: HoldingStrategy {
    public func acquire(_ resource: Int) { locks.withObject(resource) { $0.lock() } }
    public func release(_ resource: Int) { locks.withObject(resource) { $0.unlock() } }
}
