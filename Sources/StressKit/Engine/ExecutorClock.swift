import CStressSupport

/// The watchdog's clock for a trial on the deterministic executor: the wall
/// clock, except that while the executor's only thread has something to do
/// (a job running or ready, a global job such as a sleeping task's wake-up
/// among them) it runs as fast as that thread uses the CPU, and no faster.
///
/// On the deterministic executor nothing of the trial runs but on that
/// thread: while it has work, no worker can complete an operation or be
/// resumed except by it. Measured in wall time, a thread the OS did not run
/// for a while (a loaded machine) made a correct job look like a hang, and
/// workers whose wake-up was queued look suspended for good (a false
/// deadlock). Measured here, a job that loops without end still uses the CPU
/// and is reported once it has used the stall limit of it; a thread the OS
/// does not run advances nothing; and a suspension counts only while the
/// executor has nothing left that could end it. (A job blocked in the
/// kernel uses no CPU either: ``HeldJob`` keeps what tells it apart, and the
/// watchdog reports it after ``kernelWaitLimit(stallAfterNs:)``.)
struct ExecutorClock {
    /// The wall time taken out so far: in each interval between two readings
    /// in which the executor had work throughout, the part of it its thread
    /// did not spend on the CPU.
    private(set) var discountNs: UInt64 = 0
    private var last: (wall: UInt64, busy: Bool, cpu: UInt64)?
    /// The job holding the thread at the last reading, if one did.
    private(set) var held: HeldJob?
    /// Whether the trial runs on the deterministic executor (known from the
    /// first reading on).
    private(set) var isDeterministic = false
    /// The wall time and the thread's CPU time at the last reading.
    private(set) var wallNs: UInt64 = 0
    private(set) var cpuNs: UInt64 = .max

    /// A job holding the deterministic executor's thread, as first seen.
    struct HeldJob: Equatable {
        /// Its number (see ``DeterministicExecutorState/runningJob``).
        var number: UInt64
        /// ``ExecutorClock/discountNs`` at the reading before the one that
        /// first saw it, which is before it started: its time held is then
        /// short by at most the part of one interval before it started.
        var discountAtStart: UInt64
        /// Wall time and the thread's CPU time at the reading that first saw it.
        var firstSeenWallNs: UInt64
        var firstSeenCpuNs: UInt64

        /// How long it has held the thread on the executor clock (`now`),
        /// given when it started on the wall clock.
        func heldForNs(startedAtWallNs start: UInt64, now: UInt64) -> UInt64 {
            now &- Swift.min(now, start &- discountAtStart)
        }
    }

    /// The time now on this clock (monotonic ns), given the wall time and
    /// the deterministic executor's state; the wall time itself when the
    /// trial has no deterministic executor or its thread's CPU clock cannot
    /// be read.
    mutating func reading(wall: UInt64, _ state: DeterministicExecutorState?) -> UInt64 {
        wallNs = wall
        guard let state else { return wall }
        isDeterministic = true
        let cpu = stress_cpu_clock_ns(state.cpuClock)
        cpuNs = cpu
        let before = discountNs
        if let last, last.busy, state.busy, cpu != .max, last.cpu != .max {
            let wallDelta = wall &- last.wall, cpuDelta = cpu &- last.cpu
            if wallDelta > cpuDelta { discountNs &+= wallDelta - cpuDelta }
        }
        if let job = state.runningJob {
            if held?.number != job {
                held = HeldJob(number: job, discountAtStart: before, firstSeenWallNs: wall, firstSeenCpuNs: cpu)
            }
        } else {
            held = nil
        }
        last = (wall, state.busy, cpu)
        return wall &- discountNs
    }

    /// How long a job may hold the thread without using the CPU (under 1%
    /// of the time) before it counts as blocked in the kernel: ten stall
    /// limits, and at least 2 s, as for a thread worker the OS has not run.
    static func kernelWaitLimit(stallAfterNs: UInt64) -> UInt64 {
        Swift.max(10 * stallAfterNs, 2_000_000_000)
    }
}
