import StressCore

extension TrialSettings {
    /// The settings a trial spec asks for.
    package init(_ spec: TrialSpec) {
        let stop: StopCondition = spec.opsPerThread.map { .operations(perThread: $0) }
            ?? .duration(nanoseconds: UInt64(spec.durationNs ?? 1_000_000_000))
        self.init(threads: spec.threads, seed: spec.seed, warmupNs: UInt64(spec.warmupNs), stop: stop,
                  stallAfterNs: UInt64(spec.deadlockAfterNs), fuzz: spec.fuzz, timing: spec.timing, load: spec.load,
                  stopOnViolation: spec.stopOnViolation)
        executor = spec.executor
        latestStallReportNs = WatchdogTiming.latestReportNs(timeoutNs: UInt64(spec.timeoutNs))
    }
}
