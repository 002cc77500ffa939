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

    // One lock per resource. (Loading a lock out of an array retains and
    // releases it around the call, a few nanoseconds that code holding its
    // lock in a stored property does not pay: the built-in strategies keep
    // theirs in a table of unowned references instead.)
    private let locks: [AppLock]

    init(setup: StrategySetup) {
        locks = (0..<setup.resources).map { _ in AppLock() }
    }

    func read(_ resource: Int, _ body: () -> Void) { locks[resource].withLock(body) }
    func write(_ resource: Int, _ body: () -> Void) { locks[resource].withLock(body) }
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
