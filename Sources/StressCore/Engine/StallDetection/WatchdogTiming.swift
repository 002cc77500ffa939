/// When the watchdog reports a stall: the rule the plan check, the command
/// line's check and the watchdog itself share.
///
/// A stall is reported once no worker has completed an operation for
/// `deadlock_after`, as soon as the watchdog can tell the workers cannot go
/// on by themselves: every one waits on another in a way the harness sees (a
/// wait-for cycle, or a barrier or signal only the stuck could release), or
/// runs and uses the CPU, or sits asleep in the kernel while nothing else in
/// the process can run (a lock of its own code the harness does not see).
/// Otherwise (a worker in the code under test that the OS has not run, on a
/// loaded machine) it gives the OS ``graceNs(stallAfterNs:)`` to run it, and
/// reports at the latest ``reportMarginNs(timeoutNs:)`` before the trial's
/// timeout, so that a stuck trial ends as a `deadlock` or `hang` with every
/// worker's position, never as a bare `timeout`.
package enum WatchdogTiming {
    /// How long a stall the watchdog cannot judge at once (a worker in the
    /// code under test that has not run, while another thread of the process
    /// still could) may last before it is reported all the same: ten limits,
    /// at least 2 s (256 workers on two loaded cores can keep a lock holder
    /// waiting for a CPU that long).
    public static func graceNs(stallAfterNs: UInt64) -> UInt64 {
        let (tenfold, overflow) = stallAfterNs.multipliedReportingOverflow(by: 10)
        return Swift.max(overflow ? .max : tenfold, 2_000_000_000)
    }

    /// How long before the trial's timeout the watchdog reports a stall at
    /// the latest: 1 s, or a quarter of a timeout shorter than 4 s. That
    /// leaves the trial process time to start (the timeout counts from its
    /// launch) and to hand its record over before it is killed.
    public static func reportMarginNs(timeoutNs: UInt64) -> UInt64 {
        Swift.min(1_000_000_000, timeoutNs / 4)
    }

    /// The latest moment, from the start of the trial process's watchdog, at
    /// which it reports a stall of a trial with this timeout.
    package static func latestReportNs(timeoutNs: UInt64) -> UInt64 {
        timeoutNs - reportMarginNs(timeoutNs: timeoutNs)
    }

    /// Whether `stallAfterNs` leaves the watchdog time to report before a
    /// trial `timeoutNs` long is killed.
    public static func fits(stallAfterNs: UInt64, timeoutNs: UInt64) -> Bool {
        stallAfterNs <= latestReportNs(timeoutNs: timeoutNs)
    }
}
