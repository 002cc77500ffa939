import StressCore

extension TrialSettings {
    /// The settings a trial spec asks for.
    package init(_ spec: TrialSpec) {
        let stop: StopCondition = spec.opsPerThread.map { .operations(perThread: $0) }
            ?? .duration(nanoseconds: UInt64(spec.durationNanoseconds ?? 1_000_000_000))
        self.init(threads: spec.threads, seed: spec.seed, warmupNs: UInt64(spec.warmupNanoseconds), stop: stop,
                  stallAfterNs: UInt64(spec.deadlockAfterNanoseconds), fuzz: spec.fuzz, timing: spec.timing, load: spec.load,
                  stopOnViolation: spec.stopOnViolation)
        executor = spec.executor
        latestStallReportNs = WatchdogTiming.latestReportNs(timeoutNs: UInt64(spec.timeoutNanoseconds))
    }
}
