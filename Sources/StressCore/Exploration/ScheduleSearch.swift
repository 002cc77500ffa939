/// A controlled trial's run, as the engine's entry points make it: once,
/// or, with an exploration, as a bounded exhaustive search; and, when it
/// fails and shrinking is on, shrunk before its record is made.
enum ScheduleSearch {
    /// The longest a single run of a search may take before it is left
    /// behind (a run that neither ends nor stalls: a worker blocked where
    /// the model cannot see).
    static let runLimitNs: UInt64 = 10_000_000_000

    /// Runs the trial of `settings`: `once` runs one execution from a fresh
    /// start (a new state and strategy instance each time). A stall is
    /// handed to `onStall`, which ends the process, as a single run's is.
    static func run(
        _ settings: TrialSettings, scenario: Bool, onStall: @escaping @Sendable (StallReport) -> Void,
        once: @escaping ControlledExecution.Run
    ) throws -> EngineOutput {
        if let exploration = settings.exploration {
            return try explore(settings, exploration, scenario: scenario, onStall: onStall, once: once)
        }
        guard settings.schedule == .controlled, settings.shrinkNs > 0 else { return try once(settings, onStall) }
        let execute = ControlledExecution(run: once)
        let start = MonotonicClock.now()
        let first = execute(settings, limitNs: .max)
        var shrinking = settings
        shrinking.shrinkNs = shrinkBudget(settings, elapsedNs: MonotonicClock.now() &- start)
        return try finish(first, settings: shrinking, scenario: scenario, execute: execute, onStall: onStall, shrinks: true)
    }

    /// How long the failure of a run that took `elapsedNs` is shrunk: the
    /// settings' bound, cut so that the trial still hands its record over
    /// before its timeout (by the watchdog's latest report, which keeps that
    /// margin). A shrink cut short by the trial's timeout would lose the
    /// failure it was shrinking: the trial would end a bare `timeout`.
    static func shrinkBudget(_ settings: TrialSettings, elapsedNs: UInt64) -> UInt64 {
        guard let latest = settings.latestStallReportNs else { return settings.shrinkNs }
        return Swift.min(settings.shrinkNs, latest > elapsedNs ? latest - elapsedNs : 0)
    }

    /// `settings` for the candidate runs of a shrink that must end by
    /// `deadline` (monotonic ns): each stops once it passes, as at the end
    /// of its window. A candidate's own length is its decisions (up to
    /// `maxDecisions`), which on a slow path (every section a hop to the
    /// main thread) can take seconds: the bound, checked only between
    /// candidates, would otherwise be overrun by the last one by that much.
    static func bounded(_ settings: TrialSettings, until deadline: UInt64) -> TrialSettings {
        var bounded = settings
        let outer = settings.stopRequested
        bounded.stopRequested = { MonotonicClock.now() >= deadline || outer?() == true }
        return bounded
    }

    private static func explore(
        _ settings: TrialSettings, _ exploration: ExplorationSettings, scenario: Bool,
        onStall: @escaping @Sendable (StallReport) -> Void, once: @escaping ControlledExecution.Run
    ) throws -> EngineOutput {
        guard settings.schedule == .controlled else {
            throw EngineError("explore needs schedule controlled: only a controlled trial's schedules can be enumerated")
        }
        var base = settings
        base.stop = .operations(perThread: scenario ? 1 : exploration.operations)
        let execute = ControlledExecution(run: once)
        let found = ScheduleExplorer(execute: execute, settings: exploration, base: base, runLimitNs: runLimitNs,
                                     reportsProgress: true).explore()
        guard let outcome = found.outcome else { throw EngineError("the exploration ran no schedule") }
        var output = try finish(outcome, settings: base, scenario: scenario, execute: execute, onStall: onStall,
                                shrinks: false, exploration: found.record)
        output.exploration = found.record
        return output
    }

    /// The record of a run that ended: shrunk first when it failed (and
    /// `shrinks`); a stall goes to `onStall`.
    private static func finish(
        _ outcome: ControlledExecution.Outcome, settings: TrialSettings, scenario: Bool, execute: ControlledExecution,
        onStall: @escaping @Sendable (StallReport) -> Void, shrinks: Bool, exploration: ScheduleRecord.Exploration? = nil
    ) throws -> EngineOutput {
        var shrunk: ScheduleShrinker.Result?
        // A stall the main thread is stuck in leaves this process without
        // a main thread to replay it with.
        if shrinks && outcome.failed && settings.shrinkNs > 0 && !MainThreadControl.mainThreadLost {
            let deadline = MonotonicClock.now() &+ settings.shrinkNs
            shrunk = ScheduleShrinker(execute: execute, base: bounded(settings, until: deadline), budgetNs: settings.shrinkNs,
                                      runLimitNs: runLimitNs, rounds: scenario).shrink(outcome)
            if var record = shrunk?.record {
                record.operations = shrunk?.operations
                record.busy = shrunk?.busyWorkers
                shrunk?.record = record
            }
        }
        switch outcome {
        case .passed(let output):
            return output
        case .violated(var output):
            if let shrunk {
                output.shrink = shrunk.record
                output.trace = traceOf(shrunk.outcome) ?? output.trace
            }
            return output
        case .stalled(var report):
            if let shrunk {
                report.shrink = shrunk.record
                report.trace = traceOf(shrunk.outcome) ?? report.trace
            }
            report.exploration = exploration
            onStall(report)
            // onStall ends the process; should it return, the trial ends here.
            throw EngineError("the trial stalled: \(report.summary)")
        case .failedToRun(let why):
            throw EngineError(why)
        case .abandoned:
            throw EngineError("a run of the search neither ended nor stalled within \(runLimitNs / 1_000_000_000) s")
        }
    }

    private static func traceOf(_ outcome: ControlledExecution.Outcome) -> [TraceEvent]? {
        switch outcome {
        case .violated(let o), .passed(let o): return o.trace
        case .stalled(let r): return r.trace
        default: return nil
        }
    }
}
