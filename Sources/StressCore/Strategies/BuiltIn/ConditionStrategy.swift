import Foundation

/// `condition`: Foundation's `NSCondition` used as a lock, one per resource:
/// what code that also waits for a predicate under the same lock holds (a
/// producer-consumer buffer, a state machine that waits for a state).
///
/// On Linux it is swift-corelibs-foundation's class over a pthread mutex and
/// condition variable; as a plain lock it costs about what `NSLock` does. Not
/// reentrant: a second `lock()` on the owning thread never returns.
package final class ConditionStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "condition",
        summary: "Foundation NSCondition as a lock (a pthread mutex and condition variable underneath on Linux)",
        reentrant: false, sharedReads: false
    )

    private let conditions: ObjectTable<NSCondition>

    public init(setup: StrategySetup) throws {
        conditions = ObjectTable(count: setup.resources) { _ in NSCondition() }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        conditions.withObject(resource) { condition in
            condition.lock()
            defer { condition.unlock() }
            body()
        }
    }
}

extension ConditionStrategy: HoldingStrategy, ConditionWaitingStrategy {
    public func acquire(_ resource: Int) { conditions.withObject(resource) { $0.lock() } }
    public func release(_ resource: Int) { conditions.withObject(resource) { $0.unlock() } }

    /// `NSCondition.wait(until:)`, holding the condition's lock.
    public func wait(_ resource: Int, untilNanoseconds deadline: UInt64) -> Bool {
        let now = MonotonicClock.now()
        guard deadline > now else { return false }
        let date = Date(timeIntervalSinceNow: Double(deadline - now) / 1e9)
        return conditions.withObject(resource) { $0.wait(until: date) }
    }

    /// `NSCondition.broadcast()`, holding the condition's lock.
    public func broadcast(_ resource: Int) { conditions.withObject(resource) { $0.broadcast() } }
}
