/// A strategy's critical sections as the controlled scheduler models them,
/// from what its descriptor says: exclusive writes, shared reads where it
/// shares them, re-entry where it re-enters (or traps, which the real
/// primitive then does), one domain for all resources where it has one.
/// The step path asks here before it asks the strategy, so the strategy's
/// own lock or queue is free whenever it is asked for, and never blocks in
/// the kernel while its worker holds the run token.
struct SectionShadow: Sendable {
    /// unowned(unsafe): the scheduler outlives every worker of its trial,
    /// and a step must not pay a retain and a release per section.
    unowned(unsafe) let scheduler: ControlledScheduler
    let sharedReads: Bool
    let reentrant: Bool
    let singleDomain: Bool
    let mainQueue: Bool

    /// The shadow of `descriptor`'s sections, or nil for a strategy that
    /// excludes nothing (the unsynchronized control, atomics, lock-free).
    init?(_ scheduler: ControlledScheduler, _ descriptor: StrategyDescriptor) {
        guard descriptor.synchronizes, !descriptor.lockFree, descriptor.primitive != .atomic, descriptor.primitive != .none else {
            return nil
        }
        self.scheduler = scheduler
        sharedReads = descriptor.sharedReads
        if case .traps = descriptor.reentry { reentrant = true } else { reentrant = descriptor.reentrant }
        singleDomain = descriptor.singleDomain
        mainQueue = descriptor.primitive == .mainQueue
    }

    /// The model's key of resource `r`: the wait-for graph's, so a deadlock
    /// report names the same resource.
    @inline(__always)
    func key(_ r: Int) -> UInt64 {
        mainQueue ? WaitKey.mainQueue : WaitKey.strategyResource(singleDomain ? 0 : r)
    }

    /// Before asking the strategy for `r`: blocks in the model while it is taken.
    @inline(__always)
    func enter(_ r: Int, write: Bool, worker: Int) {
        scheduler.acquire(worker, key(r), shared: !write && sharedReads, reentrant: reentrant)
    }

    /// After the strategy released `r`.
    @inline(__always)
    func leave(_ r: Int, worker: Int) {
        scheduler.release(worker, key(r))
    }
}
