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
        schedule = spec.schedule
        maxDecisions = spec.maxDecisions
        // Replay checked the text against the trial's workers before it ran.
        forcedSchedule = spec.forcedSchedule.flatMap { try? ScheduleEncoding.decode($0, workers: spec.threads) }
        shrinkNs = spec.shrinkBudgetNs
        busyWorkers = spec.busyWorkers
        haltAfterDecisions = spec.haltAfterDecisions
        exploration = spec.exploration
        latestStallReportNs = WatchdogTiming.latestReportNs(timeoutNs: UInt64(spec.timeoutNanoseconds))
    }
}
