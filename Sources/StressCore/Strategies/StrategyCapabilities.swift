/// A blocking strategy whose exclusive access is a lock and an unlock that can
/// be called apart, so a worker may hold a resource across steps
/// (``Step/hold(_:resource:_:)`` ... ``Step/release(_:resource:_:)``):
/// hand-over-hand locking, or a lock held across a decision. Locks and
/// semaphores can; a queue's or an actor's access is one block, so they cannot,
/// and plans do not pair them with workloads that hold across steps.
public protocol HoldingStrategy: BlockingStrategy {
    /// Takes exclusive access to `resource` (blocking until it is free).
    ///
    /// - Parameter resource: The resource to take.
    func acquire(_ resource: Int)
    /// Gives back exclusive access to `resource`, taken by ``acquire(_:)`` on
    /// this thread.
    ///
    /// - Parameter resource: The resource to give back.
    func release(_ resource: Int)
}

/// A blocking strategy with a condition of its own per resource (a lock with
/// a condition variable): a `Step.waitUntil(_:resource:timeout:_:then:)`
/// step waits on it, holding the resource's lock between waits, as code that
/// uses the primitive directly would. Strategies without one still run such
/// steps: the engine then waits on a signal of its own between two accesses.
public protocol ConditionWaitingStrategy: BlockingStrategy {
    /// Called inside ``BlockingStrategy/write(_:_:)`` on `resource`: gives the
    /// resource up, waits to be woken (or until `deadline`, monotonic
    /// nanoseconds), and takes it back. Returns false when the deadline passed.
    /// It may return early for no reason, like any condition.
    ///
    /// - Parameters:
    ///   - resource: The resource held, given up while waiting.
    ///   - deadline: The latest time to wait until, in `DispatchTime.now().uptimeNanoseconds` terms.
    /// - Returns: False when the deadline passed.
    func wait(_ resource: Int, untilNanoseconds deadline: UInt64) -> Bool
    /// Called inside ``BlockingStrategy/write(_:_:)`` on `resource`: wakes
    /// every thread waiting on it.
    ///
    /// - Parameter resource: The resource held.
    func broadcast(_ resource: Int)
}
