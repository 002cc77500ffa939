/// `atomic`: no critical sections at all; the workload's lock-free form
/// (``Workload/lockFreeOperations()``, atomics and compare-and-swap) runs
/// instead of its locked one.
///
/// The lock-free baseline: what the operation costs when the state is a single
/// word that hardware atomics can update directly (`Synchronization.Atomic`),
/// the floor every locking strategy is measured against. It only pairs with
/// workloads that have a lock-free form (`counter` does, `bank` does not:
/// moving money between two accounts is not one word); `strategies: all` skips
/// it for the others. Reentrancy and fairness do not apply: nothing is held,
/// and every atomic instruction completes in bounded time.
package final class AtomicStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "atomic",
        summary: "no locks: the workload's lock-free form on Synchronization.Atomic (a baseline; single-word state only)",
        reentrant: true, sharedReads: true, lockFree: true, primitive: .atomic
    )

    public init(setup: StrategySetup) throws {}

    /// Never called for a correct lock-free form, whose steps are all
    /// `unguarded`; a guarded step there is a bug in the workload, and running
    /// it unprotected would pass a race off as a result.
    public func read(_ resource: Int, _ body: () -> Void) { Self.noCriticalSections() }

    /// See ``read(_:_:)``.
    public func write(_ resource: Int, _ body: () -> Void) { Self.noCriticalSections() }

    private static func noCriticalSections() -> Never {
        fatalError("the atomic strategy has no critical sections: a workload's lockFreeOperations() must use unguarded steps only")
    }
}
