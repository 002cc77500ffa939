import Synchronization

/// `mutex`: the Swift standard library's `Synchronization.Mutex` (SE-0433).
///
/// The lock Swift 6 code is meant to use: a futex-based lock on Linux
/// (`os_unfair_lock` on Apple platforms), noncopyable, with the protected value
/// inside. Not reentrant (re-locking on the owning thread deadlocks or traps).
/// No fairness guarantee.
public final class MutexStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "mutex",
        summary: "Swift Synchronization.Mutex (SE-0433): the standard library's lock",
        reentrant: false, reentry: .traps(message: "Recursive call to lock Mutex"), sharedReads: false
    )

    /// One mutex per resource, each in its own heap object so none share a line.
    private final class Box: Sendable {
        let mutex = Mutex<Void>(())
    }

    private let boxes: ObjectTable<Box>

    public init(setup: StrategySetup) throws {
        boxes = ObjectTable((0..<setup.resources).map { _ in Box() })
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        boxes.withObject(resource) { $0.mutex.withLock { _ in body() } }
    }
}
