/// A controlled trial's policy (the scheduler of its current execution),
/// held where a decision reaches it with one call and nothing else.
///
/// Why not an `any ExecutionScheduler` property: a scheduler larger than
/// three words (PCT's and the random walk's are) lives in the existential as
/// a box on the heap, and a mutating call through it (one a decision) first
/// asks the runtime whether the box is shared, reading the box's header,
/// and copies it if it is: about 50 of a decision's 700 instructions
/// (callgrind, `empty` under `pct`), and on 2 CPUs one more cache line
/// fetched from the other CPU after a switch. A class of known layout
/// holds the scheduler as a plain stored property instead, mutated in
/// place; the scheduler's ``ControlledScheduler/policy`` is a `let`, so
/// calls through it are not wrapped in a retain and a release either.
///
/// Each new execution (every round of a scenario, every epoch of a long
/// workload trial) restarts the scheduler in place when it can
/// (``ExecutionScheduler/restart(seed:)``) rather than making a new one,
/// with its box and arrays, under the state lock.
protocol HeldPolicy: AnyObject {
    /// ``ExecutionScheduler/nextWorker(among:oldest:now:parallel:)``, one
    /// worker at a time.
    func nextWorker(among runnable: [Int], oldest: Int) -> Int
    /// ``ExecutionScheduler/nextWorker(among:orTimeOut:oldest:)``.
    func nextWorker(among runnable: [Int], orTimeOut waiter: Int, oldest: Int) -> Int
    /// ``ExecutionScheduler/expectLength(_:)``.
    func expectLength(_ picks: Int)
    /// ``ExecutionScheduler/admitQueueWorkers(first:count:)``.
    func admitQueueWorkers(first: Int, count: Int)
    /// A new execution with `seed`: the scheduler restarted in place, or,
    /// when it cannot be, a new one from the policy.
    func beginExecution(seed: UInt64)
}

/// Holds a scheduler of type `Scheduler` (the type of the policy's first),
/// and, should a later execution's scheduler be of another type (a policy
/// free to make any), that one in an existential.
final class PolicyHolder<Scheduler: ExecutionScheduler>: HeldPolicy {
    // Unchecked: the controlled scheduler calls these under its state lock
    // only, one decision at a time. Checked, the runtime's access checks
    // took about as long as PCT's pick itself (perf, `empty` on 2 CPUs).
    @exclusivity(unchecked) private var scheduler: Scheduler
    @exclusivity(unchecked) private var other: (any ExecutionScheduler)?
    /// Whether `other` decides (a flag, not a test of `other`, which would
    /// copy the existential at every decision).
    @exclusivity(unchecked) private var usesOther = false
    private let make: (_ seed: UInt64) -> any ExecutionScheduler

    /// Holds `first`; later executions' schedulers, when one cannot be
    /// restarted, come from `make`.
    init(_ first: Scheduler, make: @escaping (_ seed: UInt64) -> any ExecutionScheduler) {
        scheduler = first
        self.make = make
    }

    func nextWorker(among runnable: [Int], oldest: Int) -> Int {
        if usesOther { return other!.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false) }
        return scheduler.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
    }

    func nextWorker(among runnable: [Int], orTimeOut waiter: Int, oldest: Int) -> Int {
        if usesOther { return other!.nextWorker(among: runnable, orTimeOut: waiter, oldest: oldest) }
        return scheduler.nextWorker(among: runnable, orTimeOut: waiter, oldest: oldest)
    }

    func expectLength(_ picks: Int) {
        if usesOther { other!.expectLength(picks) } else { scheduler.expectLength(picks) }
    }

    func admitQueueWorkers(first: Int, count: Int) {
        if usesOther { other!.admitQueueWorkers(first: first, count: count) } else {
            scheduler.admitQueueWorkers(first: first, count: count)
        }
    }

    func beginExecution(seed: UInt64) {
        if usesOther {
            if other!.restart(seed: seed) { return }
        } else if scheduler.restart(seed: seed) {
            return
        }
        let made = make(seed)
        if let same = made as? Scheduler {
            scheduler = same
            other = nil
            usesOther = false
        } else {
            other = made
            usesOther = true
        }
    }
}

extension ExecutionScheduler {
    /// This scheduler held for a controlled trial (see ``HeldPolicy``). On
    /// an existential, Swift opens it: the holder holds the concrete type.
    func held(make: @escaping (_ seed: UInt64) -> any ExecutionScheduler) -> any HeldPolicy {
        PolicyHolder(self, make: make)
    }
}
