import Foundation
import StressCore

extension PlanRunner {
    /// Whether `result` failed free-running in a way a controlled trial of
    /// the same cell could fail too: a violation, a deadlock or a hang of a
    /// free trial that control can run (``ControlledScheduleLimits``: thread
    /// workers, no paced load, no litmus test).
    package func canHunt(_ result: TrialResult) -> Bool {
        let t = result.trial
        return HuntRecord.huntedOutcomes.contains(result.outcome) && t.schedule == .free && t.forcedSchedule == nil
            && registry.strategy(for: t) != nil && ControlledScheduleLimits.problem(of: t, registry: registry) == nil
    }

    /// The command that hunts for `result`'s failure under control, where
    /// it can be traced; nil when control cannot run its trial.
    package func huntCommand(for result: TrialResult, planFile: String) -> String? {
        canHunt(result) ? options.rerun.hunt(result.trial, planFile: planFile) : nil
    }

    /// Whether `spec` is one of the trials this runner selects of `plan`, or
    /// an attempt of a hunt for one of them (``huntedSpec(_:attempt:shrinkNs:)``,
    /// whatever its seed): what a child process of an isolated stress test,
    /// which runs the test again, may take.
    package func takes(_ spec: TrialSpec, of plan: Plan) -> Bool {
        let selected = selectedTrials(of: plan)
        if selected.contains(spec) { return true }
        guard spec.schedule == .controlled else { return false }
        return selected.contains { free in
            var attempt = Self.huntedSpec(free, attempt: 0, shrinkNs: options.shrinkNs)
            attempt.seed = spec.seed
            return attempt == spec
        }
    }

    /// How long to hunt for `result`'s failure, in nanoseconds: `--hunt`
    /// when the run gives it, else its experiment's `hunt` (0: no hunt).
    package func huntBudgetNs(for result: TrialResult, in plan: Plan) -> UInt64 {
        options.huntNs ?? plan.experiments.first { $0.name == result.trial.experiment }?.huntNs ?? 0
    }

    /// Hunts for every free-running failure of `report` that control can
    /// run, each for up to `budgetNs(failure)` (none when that is 0):
    /// controlled trials of the same cell (the failing seed, then seeds
    /// derived from it), run like any trial (the same isolation), until one
    /// fails the same way (``HuntRecord/sameFailure(_:_:)``). Each hunted
    /// record gets its ``TrialResult/hunt``, and `stream` a hunt line for it
    /// (``HuntLine``: the record's own line went out before the hunt);
    /// outcomes and the exit code stay as they were.
    ///
    /// A controlled trial started within the budget runs to its end (its
    /// shrinking included), so a hunt may overrun by one trial. A signal
    /// stops the hunt: the records keep what was found, and the report
    /// says it was interrupted.
    ///
    /// - Parameters:
    ///   - report: A finished run's report.
    ///   - budgetNs: How long to hunt for a failure; 0 for not at all.
    ///   - stream: The run's NDJSON stream, when it has one.
    ///   - progress: Called before each failure's hunt with its trial id and budget.
    func hunt(_ report: inout RunReport, budgetNs: (TrialResult) -> UInt64, stream: RecordStream? = nil,
              progress: ((_ id: String, _ budgetNs: UInt64) -> Void)? = nil) {
        guard report.stop?.reason != .signal else { return }
        for i in report.trials.indices where canHunt(report.trials[i]) {
            let budget = budgetNs(report.trials[i])
            guard budget > 0 else { continue }
            if let signal = interruption() {
                report.stop = RunStop(reason: .signal, signal: signal)
                return
            }
            progress?(report.trials[i].trial.id, budget)
            let found = hunt(report.trials[i], planFile: report.planFile, budgetNs: budget)
            report.trials[i].hunt = found
            stream?.append(HuntLine(trial: report.trials[i].trial.id, hunt: found))
            if let signal = interruption() {
                report.stop = RunStop(reason: .signal, signal: signal)
                return
            }
        }
    }

    /// One failure's hunt.
    private func hunt(_ free: TrialResult, planFile: String, budgetNs: UInt64) -> HuntRecord {
        let started = MonotonicClock.now()
        var attempts = 0
        while MonotonicClock.now() &- started < budgetNs, interruption() == nil {
            let spec = Self.huntedSpec(free.trial, attempt: attempts, shrinkNs: options.shrinkNs)
            var result = runTrial(spec)
            // A trial a signal cut short is not an attempt.
            if interruption() != nil { break }
            attempts += 1
            guard HuntRecord.sameFailure(free, result) else { continue }
            result.rerunCommand = options.rerun.huntedTrial(spec, planFile: planFile)
            return HuntRecord(found: true, attempts: attempts, seconds: Self.seconds(since: started), seed: spec.seed,
                              trial: result.rerunCommand ?? "", result: result)
        }
        return HuntRecord(found: false, attempts: attempts, seconds: Self.seconds(since: started), seed: nil,
                          trial: options.rerun.hunt(free.trial, planFile: planFile), result: nil)
    }

    /// Attempt `attempt`'s controlled trial of `free`'s cell: the failing
    /// seed first, then seeds derived from it, under the hunt's policy
    /// (``HuntRecord/policy``), stopping at the first violation, shrinking
    /// what fails (by `shrinkNs` when the run set a bound; the default bound
    /// otherwise, and never none: the trace is what the hunt is for).
    static func huntedSpec(_ free: TrialSpec, attempt: Int, shrinkNs: UInt64?) -> TrialSpec {
        var s = free
        s.schedule = .controlled
        s.exploration = nil
        s.fuzz = FuzzSettings(HuntRecord.policy)
        s.stopOnViolation = true
        s.shrinkNanoseconds = shrinkNs.flatMap { $0 == 0 ? nil : Int(clamping: $0) }
        if attempt > 0 {
            s.seed = SplitMix64.derive(free.seed, UInt64(attempt)) & (TrialMatrix.seedLimit - 1)
        }
        if let needed = controlledTimeout(s) { s.timeoutNanoseconds = max(s.timeoutNanoseconds, Int(clamping: needed)) }
        return s
    }

    private static func seconds(since started: UInt64) -> Double {
        Double(MonotonicClock.now() &- started) / 1e9
    }
}

extension HuntRecord {
    /// Whether `controlled` failed the way `free` did: the same outcome and,
    /// for violations, the same first message with its numbers left out
    /// (``FailureSignature/shape(_:)``: "final count # != # increments done").
    package static func sameFailure(_ free: TrialResult, _ controlled: TrialResult) -> Bool {
        guard controlled.outcome == free.outcome else { return false }
        guard free.outcome == .violated else { return true }
        guard let first = free.violations.samples.first?.message,
              let found = controlled.violations.samples.first?.message else { return false }
        return FailureSignature.shape(first) == FailureSignature.shape(found)
    }
}
