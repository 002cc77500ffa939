/// The watchdog's clock for a trial on the deterministic executor: the
/// executor's own time, the CPU time its only thread has used plus the time
/// it has had nothing to do, in place of the wall clock.
///
/// On the deterministic executor nothing of the trial runs but on that
/// thread. Measured in wall time, a thread the OS did not run for a while (a
/// loaded machine) made a correct job look like a hang, and workers whose
/// wake-up waited on the thread look suspended for good (a false deadlock).
/// On this clock such a thread advances nothing: a job that loops without end
/// still uses the CPU and is reported once it has used the stall limit of
/// it; workers suspended while the executor is idle (nothing running, ready
/// or sleeping: nothing of its own can resume them) are suspended on this
/// clock as on the wall's. (A job blocked in the kernel uses no CPU: ``HeldJob``
/// keeps what tells it apart, and the watchdog reports it after
/// ``kernelWaitLimit(stallAfterNs:)`` of wall time.)
///
/// The executor keeps its idle time itself, so the clock does not depend on
/// when the watchdog looks; it is anchored to the wall clock at the moment
/// the first state read was taken (not at the look's own wall time, which
/// the OS may have delayed by then) and never runs ahead of it. Nothing
/// before that first reading is known on this clock: the watchdog counts a
/// worker's stall from its first look after arming, not from the arming
/// (see `Watchdog.watch()`).
struct ExecutorClock {
    /// The wall time minus the executor's at the first reading.
    private var origin: UInt64?
    /// The last time read: the clock never goes back.
    private var last: UInt64 = 0
    /// The job holding the thread at the last reading, if one did.
    private(set) var held: HeldJob?
    /// Whether the trial runs on the deterministic executor (known from the
    /// first reading on).
    private(set) var isDeterministic = false
    /// The wall time and the thread's CPU time at the last reading.
    private(set) var wallNs: UInt64 = 0
    private(set) var cpuNs: UInt64 = .max
    /// The executor thread's kernel id (0: not known yet).
    private(set) var threadId: UInt64 = 0

    /// A job holding the deterministic executor's thread, as first seen.
    struct HeldJob: Equatable {
        /// Its number (see ``DeterministicExecutorState/runningJob``).
        var number: UInt64
        /// The executor clock, the wall time and the thread's CPU time at the
        /// reading that first saw it (its time held is short by at most the
        /// part of one interval between two readings before that).
        var firstSeenNs: UInt64
        var firstSeenWallNs: UInt64
        var firstSeenCpuNs: UInt64

        /// How long it has held the thread on the executor clock (`now`).
        func heldForNs(now: UInt64) -> UInt64 { now &- Swift.min(now, firstSeenNs) }
    }

    /// The time now on this clock (monotonic ns), given the wall time and
    /// the deterministic executor's state; the wall time itself when the
    /// trial has no deterministic executor or its thread's CPU clock cannot
    /// be read (yet). The state may be older than `wall` (the watchdog reads
    /// it before the workers' words): the time is then the state's, never
    /// later than `wall`.
    mutating func reading(wall: UInt64, _ state: DeterministicExecutorState?) -> UInt64 {
        wallNs = wall
        guard let state else { return wall }
        isDeterministic = true
        let cpu = state.cpuNs
        cpuNs = cpu
        guard cpu != .max else {
            held = nil
            last = origin == nil ? wall : last
            return last
        }
        threadId = state.threadId
        let own = cpu &+ state.idleNs
        // The moment the state describes: a look the OS delayed after reading
        // it must not count the delay as the executor's time.
        let anchor = state.wallNs == 0 ? wall : Swift.min(wall, state.wallNs)
        if origin == nil { origin = anchor &- Swift.min(anchor, own) }
        let now = Swift.max(last, Swift.min(wall, own &+ (origin ?? 0)))
        last = now
        if let job = state.runningJob {
            if held?.number != job { held = HeldJob(number: job, firstSeenNs: now, firstSeenWallNs: wall, firstSeenCpuNs: cpu) }
        } else {
            held = nil
        }
        return now
    }

    /// What the watchdog's first look after arming dates every worker's
    /// last progress to, that look being this clock's reading `now`: the
    /// arming (`armedAt`) on the wall clock; on the executor's, this look.
    /// That clock starts at its first reading and knows nothing of the
    /// executor's time before it. When the OS ran the watchdog late (a loaded
    /// machine, or the scheduler's lock held by an executor thread the OS had
    /// preempted), counting the wall time since the arming made a worker that
    /// happened to await an actor at that first look "suspended" for as long:
    /// a false deadlock, which a replay did not reproduce.
    func firstLookOrigin(armedAt: UInt64, now: UInt64) -> UInt64 {
        isDeterministic ? now : armedAt
    }

    /// How long a job may hold the thread without using the CPU (under 1%
    /// of the time) before it counts as blocked in the kernel: ten stall
    /// limits, and at least 2 s, as for a thread worker the OS has not run.
    static func kernelWaitLimit(stallAfterNs: UInt64) -> UInt64 {
        Swift.max(10 * stallAfterNs, 2_000_000_000)
    }
}
