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

    /// Whether the main thread takes part in a controlled trial started now:
    /// where it serves the main queue itself (and is not stuck in an
    /// earlier trial's stall).
    static var mainThreadTakesPart: Bool { mainThreadAbsence == nil }

    /// Why the main thread takes no part in a controlled trial started now,
    /// in words; nil when it does.
    static var mainThreadAbsence: String? {
        if !MainThreadService.isServing {
            return "it does not (the main thread runs something else, such as the test runner)"
        }
        if MainThreadControl.mainThreadLost { return "it is stuck in an earlier trial's deadlock" }
        return nil
    }

    /// The scheduler of a trial of `settings`, deciding by `policy`.
    static func scheduler(
        _ settings: TrialSettings, policy: any SchedulingPolicy,
        onDeadlock: @escaping @Sendable (_ stuck: [Int], _ schedule: ScheduleRecord, _ detail: ControlledScheduler.StallDetail) -> Void
    ) -> ControlledScheduler {
        let scheduler = ControlledScheduler(
            workers: settings.threads,
            policy: { seed in policy.makeScheduler(settings: settings.fuzz, seed: seed, workers: settings.threads) },
            seeds: { epoch in SplitMix64.derive(settings.seed, 0xC0_47_20_11 &+ epoch) },
            forced: settings.forcedSchedule, maxDecisions: settings.maxDecisions, lengthGuess: lengthGuess(settings),
            spuriousWakeups: settings.fuzz.spuriousWakeups ?? 0, seed: settings.seed, onDeadlock: onDeadlock,
            fallback: settings.scheduleFallback, recordsChoices: settings.recordsChoices, deviations: settings.deviations,
            participants: settings.stop.opsPerThread == nil ? nil : settings.busyWorkers?.within(threads: settings.threads).workers,
            // The main thread takes part where it serves the main queue
            // itself (and is not stuck in an earlier trial's stall).
            mainThread: mainThreadTakesPart)
        // Each run from a fresh start (one of an exploration's, of
        // shrinking's) is the one a crash would have cut short.
        scheduler.journal = CrashJournal.current
        scheduler.journal?.beginRun(opsPerThread: settings.stop.opsPerThread,
                                    busyWorkers: settings.stop.opsPerThread == nil ? nil : settings.busyWorkers)
        scheduler.haltAt = settings.haltAfterDecisions ?? -1
        scheduler.onHalt = settings.onHalt
        return scheduler
    }

    /// Decisions an operation is taken to make before any is measured: its
    /// start and end, the points around its strategy access and between its
    /// steps, and the worker's own start and finish. The counter's
    /// split increment makes 12; a guess on the long side costs PCT a little
    /// of its odds, one on the short side puts later points out of reach.
    static let decisionsPerOperationGuess = 16

    /// How long the trial's first execution is guessed to be, for the
    /// policy's choices to spread over (PCT's change points): from the
    /// operation budget when the trial has one, else a full epoch. A
    /// scenario's rounds after the first use the longest round measured.
    static func lengthGuess(_ settings: TrialSettings) -> Int {
        guard let ops = settings.stop.opsPerThread else { return ControlledScheduler.epochLength }
        let busy = settings.busyWorkers?.within(threads: settings.threads).workers.count ?? settings.threads
        let guess = busy.multipliedReportingOverflow(by: ops)
        guard !guess.overflow else { return ControlledScheduler.epochLength }
        let decisions = guess.partialValue.multipliedReportingOverflow(by: decisionsPerOperationGuess)
        return decisions.overflow ? ControlledScheduler.epochLength : min(decisions.partialValue, ControlledScheduler.epochLength)
    }
}
