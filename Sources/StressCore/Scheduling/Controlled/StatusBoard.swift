/// Each worker's ``ControlledScheduler/Status``, kept with what every
/// decision asks of it, so that a decision need not scan every slot: a
/// version that changes whenever a worker becomes runnable or stops being
/// so (the scheduler keeps its list of runnable workers until it does), the
/// number of timed waiters (none, the usual case: no scan for the earliest),
/// and a bound past which every worker has only ever been absent, idle or
/// finished (the main thread's and the queue workers' slots, most of a small
/// trial's, are idle throughout), so that a scan for a runnable, blocked or
/// waiting worker may stop there.
struct StatusBoard {
    typealias Status = ControlledScheduler.Status

    private var slots: [Status]
    /// Changes whenever a worker becomes runnable or stops being runnable.
    private(set) var version: UInt64 = 0
    /// Workers waiting with a deadline now.
    private(set) var timedWaiters = 0
    /// One past the highest worker that has ever been anything but absent,
    /// idle or finished: every worker from here on is one of those.
    private(set) var limit = 0

    init(count: Int) { slots = Array(repeating: .absent, count: count) }

    subscript(_ worker: Int) -> Status {
        get { slots[worker] }
        set {
            let old = slots[worker]
            guard old != newValue else { return }
            slots[worker] = newValue
            if (old == .runnable) != (newValue == .runnable) { version &+= 1 }
            if old == .timedWaiting { timedWaiters &-= 1 }
            if newValue == .timedWaiting { timedWaiters &+= 1 }
            if worker >= limit && newValue != .absent && newValue != .idle && newValue != .finished { limit = worker &+ 1 }
        }
    }

    /// Whether any worker's status is `status`.
    func contains(_ status: Status) -> Bool { slots.contains(status) }
}
