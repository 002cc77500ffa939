// Only the public API: a team's own strategy, defined outside StressKit,
// registered beside the built-ins and run through a plan. Everything from the
// imports down is docs/own-strategies.md's example:
// change one, change the other.
import Foundation
import StressKit
import XCTest

/// A lock class from our own codebase.
final class AppLock: @unchecked Sendable {
    // @unchecked: NSCondition is itself the thread-safe part; nothing else is stored.
    private let condition = NSCondition()

    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}

/// Puts AppLock under test: one lock per resource the workload guards.
final class AppLockStrategy: BlockingStrategy {
    static let descriptor = StrategyDescriptor(
        name: "app-lock", summary: "our AppLock (an NSCondition underneath)",
        reentrant: false, sharedReads: false
    )

    // An ObjectTable rather than an array: it lends each lock without a
    // retain and release per operation, which would cost about as much as
    // an uncontended lock and which code holding its lock in a property
    // does not pay.
    private let locks: ObjectTable<AppLock>

    init(setup: StrategySetup) {
        locks = ObjectTable((0..<setup.resources).map { _ in AppLock() })
    }

    func read(_ resource: Int, _ body: () -> Void) { locks.withObject(resource) { $0.withLock(body) } }
    func write(_ resource: Int, _ body: () -> Void) { locks.withObject(resource) { $0.withLock(body) } }
}

final class PluggabilityTests: XCTestCase {
    func testATeamsOwnLockRunsThroughAPlan() throws {
        var registry = StressRegistry.builtIn
        registry.register(strategy: AppLockStrategy.self)

        let report = try PlanRunner.run(yaml: """
            experiments:
              - workload: bank
                strategies: [app-lock, pthread-mutex]
                threads: [1, 4]
                ops: 10000
            """, registry: registry)

        XCTAssertEqual(report.exitCode, .passed)
        XCTAssertEqual(report.trials.map(\.trial.strategy), ["app-lock", "app-lock", "pthread-mutex", "pthread-mutex"])
    }
}
