/// What a trial under controlled scheduling needs besides a free-running
/// one: the refusals of what control cannot run, and the scheduler itself.
enum ControlledTrial {
    /// Why this trial cannot run under control, or nil when it can. The plan
    /// loader refuses the same cases with the plan's line; this is the
    /// engine's own guard, for trials made from Swift.
    static func refusal<State>(
        _ operations: [StressOperation<State>], strategy: StrategyDescriptor, settings: TrialSettings, awaits: Bool
    ) -> EngineError? {
        let name = strategy.name
        if strategy.execution == .tasks || awaits {
            return EngineError("schedule controlled runs thread workers; strategy \(name)'s workers are tasks (or the workload awaits): "
                               + "the deterministic executor (executor: deterministic) is the controlled schedule of async code")
        }
        if strategy.asynchronousWrites {
            return EngineError("schedule controlled cannot run strategy \(name): its writes are submitted with async and run on "
                               + "dispatch threads the harness does not schedule")
        }
        if settings.load.mode == .paced {
            return EngineError("schedule controlled runs a closed loop: a paced rate is a wall-clock schedule, which one worker "
                               + "at a time cannot keep")
        }
        if operations.contains(where: { $0.steps.contains { $0.access.waits } }) {
            return EngineError("schedule controlled cannot run waitUntil steps yet: their waits are on a condition the "
                               + "scheduler does not model; use StressCondition in the workload's own code instead")
        }
        return nil
    }

    /// The scheduler of a trial of `settings`, deciding by `policy`.
    static func scheduler(
        _ settings: TrialSettings, policy: any SchedulingPolicy,
        onDeadlock: @escaping @Sendable (_ stuck: [Int], _ schedule: ScheduleRecord, _ detail: ControlledScheduler.StallDetail) -> Void
    ) -> ControlledScheduler {
        let scheduler = ControlledScheduler(
            workers: settings.threads,
            policy: { epoch in
                policy.makeScheduler(settings: settings.fuzz, seed: SplitMix64.derive(settings.seed, 0xC0_47_20_11 &+ epoch),
                                     workers: settings.threads)
            },
            forced: settings.forcedSchedule, maxDecisions: settings.maxDecisions,
            spuriousWakeups: settings.fuzz.spuriousWakeups ?? 0, seed: settings.seed, onDeadlock: onDeadlock,
            fallback: settings.scheduleFallback, recordsChoices: settings.recordsChoices, deviations: settings.deviations,
            participants: settings.stop.opsPerThread == nil ? nil : settings.busyWorkers?.within(threads: settings.threads).workers)
        // Each run from a fresh start (one of an exploration's, of
        // shrinking's) is the one a crash would have cut short.
        scheduler.journal = CrashJournal.current
        scheduler.journal?.beginRun(opsPerThread: settings.stop.opsPerThread,
                                    busyWorkers: settings.stop.opsPerThread == nil ? nil : settings.busyWorkers)
        scheduler.haltAt = settings.haltAfterDecisions ?? -1
        scheduler.onHalt = settings.onHalt
        return scheduler
    }
}
