import Dispatch

/// `semaphore`: a `DispatchSemaphore(value: 1)` per resource, used as a lock
/// (`wait()` to enter, `signal()` to leave): common in code that predates
/// `NSLock` habits, and in code that bridges callbacks.
///
/// Not reentrant: a second `wait()` on the owning thread never returns (a
/// `deadlock` whose cycle has the worker waiting for itself). FIFO-ish:
/// libdispatch wakes waiters in order, but a thread that arrives as the
/// semaphore is signalled may take it first.
package final class SemaphoreStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "semaphore",
        summary: "DispatchSemaphore(value: 1) as a lock: wait to enter, signal to leave",
        reentrant: false, sharedReads: false, primitive: .semaphore
    )

    private let semaphores: ObjectTable<DispatchSemaphore>

    public init(setup: StrategySetup) throws {
        semaphores = ObjectTable(count: setup.resources) { _ in DispatchSemaphore(value: 1) }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        semaphores.withObject(resource) { semaphore in
            semaphore.wait()
            defer { semaphore.signal() }
            body()
        }
    }
}

extension SemaphoreStrategy: HoldingStrategy {
    public func acquire(_ resource: Int) { semaphores.withObject(resource) { $0.wait() } }
    public func release(_ resource: Int) { semaphores.withObject(resource) { _ = $0.signal() } }
}
