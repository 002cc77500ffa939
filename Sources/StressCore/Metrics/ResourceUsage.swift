#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU, context switches and memory of the trial process over the measured
/// window (from `getrusage(RUSAGE_SELF)`: every thread of the process, including
/// libdispatch's and the Swift concurrency pool's).
package struct ResourceUsage: Sendable, Codable, Equatable {
    /// User and system CPU time spent in the window.
    public var userCpuNs: Int
    public var systemCpuNs: Int
    /// Context switches in the window: voluntary (a thread blocked) and
    /// involuntary (the OS preempted one).
    public var voluntaryContextSwitches: Int
    public var involuntaryContextSwitches: Int
    /// Peak resident set size of the process so far.
    public var peakRSSBytes: Int
    /// CPU time (user + system) per operation in the window.
    public var cpuNsPerOp: Double?
    /// The CPU time the worker threads themselves used in the window, summed:
    /// each thread's own CPU clock, read by the coordinator while the workers
    /// wait at the window's gates. Exact to the nanosecond (the kernel brings
    /// a thread's clock up to date when another reads it), where the
    /// process's figure can lag a running thread by a scheduler tick, and
    /// free of the coordinator's, the watchdog's and the runtime's threads.
    /// Absent for task workers, which have no thread of their own, and where
    /// a thread's clock could not be read.
    public var workerCpuNs: Int?
    /// ``workerCpuNs`` per operation.
    public var workerCpuNsPerOp: Double?
    /// Context switches (both kinds) per thousand operations.
    public var contextSwitchesPer1kOps: Double?
    /// Scheduling periods of a CPU-time quota (100 ms by default) in the
    /// window in which the process's control group ran: the one whose quota
    /// is tightest (``EnvironmentInfo/cpuQuota``). Absent where no quota
    /// applies (nothing can throttle) or the kernel's counters could not be
    /// read; every `throttled` figure is absent with it, and 0 is a measured 0.
    public var quotaPeriods: Int?
    /// Of ``quotaPeriods``, those in which the group used up its quota and the
    /// kernel stopped its threads until the next period began. The group's
    /// figure, so quota another process of the group used counts too.
    public var throttledPeriods: Int?
    /// How long the group's threads were held back in those periods, summed
    /// over the CPUs they were held back on (the kernel's count: two CPUs
    /// stopped for 10 ms count 20 ms).
    public var throttledNs: Int?

    /// A reading of the process's counters.
    struct Reading {
        let usage: rusage
        /// The quota's throttling counters, where a quota applies.
        let throttling: ThrottleCounters?
        /// The worker threads' CPU clocks, summed (nil as for ``workerCpuNs``).
        var workerCpuNs: UInt64? = nil

        /// A reading of the process's counters and, when `board` is given and
        /// every worker has a thread, of the workers' own CPU clocks.
        static func now(workersOf board: SiteBoard? = nil) -> Reading {
            var reading = now()
            if let board { reading.workerCpuNs = board.workerCpuNs() }
            return reading
        }

        static func now() -> Reading {
            // The quota's counters first: the first call also finds the
            // process's control group, work that belongs before the window's
            // CPU time starts counting, not in it.
            let throttling = ControlGroupCPU.currentThrottling()
            var u = rusage()
            #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &u)
            #else
            getrusage(RUSAGE_SELF, &u)
            #endif
            return Reading(usage: u, throttling: throttling)
        }
    }

    /// The usage between two readings, per operation where that makes sense.
    init(from a: Reading, to b: Reading, operations: Int) {
        func ns(_ t: timeval) -> Int { Int(t.tv_sec) * 1_000_000_000 + Int(t.tv_usec) * 1_000 }
        userCpuNs = ns(b.usage.ru_utime) - ns(a.usage.ru_utime)
        systemCpuNs = ns(b.usage.ru_stime) - ns(a.usage.ru_stime)
        voluntaryContextSwitches = Int(b.usage.ru_nvcsw - a.usage.ru_nvcsw)
        involuntaryContextSwitches = Int(b.usage.ru_nivcsw - a.usage.ru_nivcsw)
        #if os(Linux)
        peakRSSBytes = Int(b.usage.ru_maxrss) * 1024
        #else
        peakRSSBytes = Int(b.usage.ru_maxrss)
        #endif
        cpuNsPerOp = operations > 0 ? Double(userCpuNs + systemCpuNs) / Double(operations) : nil
        if let start = a.workerCpuNs, let end = b.workerCpuNs, end >= start {
            workerCpuNs = Int(end - start)
            workerCpuNsPerOp = operations > 0 ? Double(end - start) / Double(operations) : nil
        }
        contextSwitchesPer1kOps = operations > 0
            ? Double(voluntaryContextSwitches + involuntaryContextSwitches) * 1000 / Double(operations) : nil
        if let start = a.throttling, let end = b.throttling {
            quotaPeriods = end.periods - start.periods
            throttledPeriods = end.throttledPeriods - start.throttledPeriods
            throttledNs = end.throttledNs - start.throttledNs
        }
    }
}
