import StressCore

/// The terminal summary of a run: one row per trial, then the details of every
/// trial that did not pass (violations, crash output, rerun command).
public enum TableReport {
    /// The whole text. Its last line gives `exitCode`, by default the
    /// report's own; a command that could not write an output file passes
    /// the code it will really exit with.
    ///
    /// - Parameters:
    ///   - report: The run's report.
    ///   - exitCode: The exit code to state; nil for the report's own.
    /// - Returns: The table, one line per trial, then the summary.
    public static func render(_ report: RunReport, exitCode: RunExitCode? = nil) -> String {
        let showExperiment = report.trials.contains { $0.trial.experiment != $0.trial.workload }
        let showRepetition = report.trials.contains { $0.trial.repetition > 0 }
        let showPaced = report.trials.contains { $0.trial.load.mode == .paced }
        let showAllocator = Set(report.trials.map(\.trial.allocator)).count > 1
        var header = ["workload", "strategy", "threads", "ops/s", "p50", "p99", "p99.9", "max", "violations", "outcome"]
        if showPaced { header.insert("resp p99", at: header.count - 2) }
        if showRepetition { header.insert("rep", at: 3) }
        if showAllocator { header.insert("allocator", at: 2) }
        if showExperiment { header.insert("experiment", at: 0) }
        // A stopped run's trials that never started have nothing to show but
        // `skipped`, and may be hundreds of thousands: they are left out of
        // the table, and the block below counts and names them.
        let notStarted = report.stop?.notRunMessage
        let shown = report.trials.lazy.filter { $0.outcome != .skipped || notStarted == nil || $0.failure?.message != notStarted }
        let rows = shown.map { r -> [String] in
            let m = r.measurement
            let l = m?.latency
            var row = [
                r.trial.workload, r.trial.strategy, String(r.trial.threads),
                m.map { Formatting.rate($0.opsPerSecond) } ?? "-",
                l.map { Formatting.latency($0.p50Nanoseconds) } ?? "-",
                l.map { Formatting.latency($0.p99Nanoseconds) } ?? "-",
                l.map { Formatting.latency($0.p999Nanoseconds) } ?? "-",
                l.map { Formatting.latency($0.maxNanoseconds) } ?? "-",
                m == nil && r.violations.count == 0 ? "-" : String(r.violations.count),
                outcomeCell(r),
            ]
            if showPaced {
                let resp = m?.responseLatency.map { Formatting.latency($0.p99Nanoseconds) } ?? "-"
                let behind = m?.pacing.map { $0.keptUp ? "" : " (behind)" } ?? ""
                row.insert(resp + behind, at: row.count - 2)
            }
            if showRepetition { row.insert(String(r.trial.repetition), at: 3) }
            if showAllocator { row.insert(r.trial.allocator.rawValue, at: 2) }
            if showExperiment { row.insert(r.trial.experiment, at: 0) }
            return row
        }
        let numeric = Set(header.enumerated().filter { ["threads", "rep", "ops/s", "p50", "p99", "p99.9", "max", "violations", "resp p99"].contains($0.element) }.map(\.offset))
        var text = "Latency is service time per operation (closed loop: each worker starts its next op when the last ends);\n"
        text += "percentiles come from per-thread HdrHistograms merged over all workers. ops/s is over the measured window.\n"
        if showPaced { text += "resp p99: paced trials, from each op's intended start to its end (no coordinated omission).\n" }
        if let timing = timingLine(report.trials) { text += timing + "\n" }
        if let quota = throttlingLine(report.trials) { text += quota + "\n" }
        if let control = controlLine(report.trials) { text += control + "\n" }
        // Said first-hand: figures from a TSan build are not a plain build's,
        // and its violations include the data races TSan saw.
        if report.trials.contains(where: { $0.environment.sanitizer == ThreadSanitizer.name }) {
            text += "ThreadSanitizer build: every data race is a violation (docs/data-races.md); its ops/s and latencies are not a plain build's.\n"
        }
        text += "\n"
        text += Formatting.table(header, Array(rows), rightAligned: numeric) + "\n"
        let scenarios = report.trials.compactMap(outcomeBlock)
        if !scenarios.isEmpty { text += "\n" + scenarios.joined(separator: "\n") + "\n" }
        let explored = report.trials.compactMap { r in r.exploration.map { "\(r.trial.id): " + ExplorationText.line($0) } }
        if !explored.isEmpty { text += "\n" + explored.joined(separator: "\n") + "\n" }
        let (problems, skipped) = problemsAndSkippedGroups(report.trials)
        let drawn = TraceText.drawnIndex(problems)
        let huntDrawn = TraceText.huntDrawnIndex(problems)
        var blocks = problems.enumerated().map {
            details($1, planFile: report.planFile, rerun: report.rerun, drawTrace: $0 == drawn, drawHunt: $0 == huntDrawn)
        }
        blocks += skipped.map { group in
            "\(group.ids.count) trial(s) skipped: \(group.reason)\n  " + listed(group.ids, limit: 10)
        }
        if !blocks.isEmpty { text += "\n" + blocks.joined(separator: "\n") + "\n" }
        text += "\n" + summaryLine(report, exitCode: exitCode) + "\n"
        return text
    }

    /// A note when the run has a strategy that does not synchronize (the
    /// `unsynchronized` control): its ops/s and latencies are not comparable
    /// with a strategy's, since with nothing to order the optimizer may fold
    /// its loop (nil when there is none).
    static func controlLine(_ trials: [TrialResult], registry: StressRegistry = .builtIn) -> String? {
        let controls = Set(trials.map(\.trial.strategy)).filter { registry.strategy(named: $0)?.descriptor.synchronizes == false }.sorted()
        guard !controls.isEmpty else { return nil }
        return "\(controls.joined(separator: ", ")): no synchronization, so its ops/s and latencies are not comparable with a strategy's "
            + "(with nothing to order, the optimizer may fold its loop); it is there to show the checks see a race."
    }

    /// Which clock timed the operations and how many of them were timed, so a
    /// reader knows whether a percentile is exact or estimated from a sample
    /// (nil when no trial was measured).
    static func timingLine(_ trials: [TrialResult]) -> String? {
        let timings = trials.compactMap { $0.measurement?.timing }
        guard !timings.isEmpty else { return nil }
        let clocks = Set(timings.map(\.clock)).sorted().map { clock -> String in
            let reads = timings.filter { $0.clock == clock }.map(\.clockReadNs)
            let name = clock == "tsc" ? "the CPU's time-stamp counter" : clock == "monotonic" ? "CLOCK_MONOTONIC" : clock
            return name + String(format: " (%.0f ns a read)", reads.reduce(0, +) / Double(reads.count))
        }
        // 0: a trial that timed nothing (it ended before its first sample).
        let intervals = timings.map(\.sampleEvery).filter { $0 > 0 }
        let lo = intervals.min() ?? 0, hi = intervals.max() ?? 0
        let sampled: String
        if intervals.isEmpty {
            sampled = "no operation timed"
        } else if hi <= 1 {
            sampled = "every operation timed"
        } else {
            let range = lo == hi ? "1 op in \(lo)" : "1 op in \(lo) to 1 in \(hi)"
            let auto = timings.contains { $0.sampling == "auto" } ? " (sample: auto: cheaper ops sampled more sparsely)" : ""
            sampled = "\(range) timed per trial\(auto), each counted for its interval"
        }
        return "Timing: " + clocks.joined(separator: ", ") + "; " + sampled + "."
    }

    /// The trials that did not pass, one by one, except that skipped trials
    /// skipped for the same reason (the run stopped, jemalloc is missing) come
    /// as one group: a run stopped early does not print a block per trial it
    /// never started.
    static func problemsAndSkippedGroups(_ trials: [TrialResult]) -> (problems: [TrialResult], skipped: [(reason: String, ids: [String])]) {
        let reason = { (r: TrialResult) in r.failure?.message ?? "not run" }
        var sameReason: [String: Int] = [:]
        for r in trials where r.outcome == .skipped { sameReason[reason(r), default: 0] += 1 }
        var problems: [TrialResult] = []
        var groups: [(reason: String, ids: [String])] = []
        for r in trials where r.expectation != .passed {
            let reason = reason(r)
            if r.outcome == .skipped, sameReason[reason, default: 0] > 1 {
                if let g = groups.firstIndex(where: { $0.reason == reason }) { groups[g].ids.append(r.trial.id) } else { groups.append((reason, [r.trial.id])) }
            } else {
                problems.append(r)
            }
        }
        return (problems, groups)
    }

    /// Which trials a CPU-time quota held back, and how often, so that nobody
    /// reads the quota's stalls as the code's; nil when it held back none (or
    /// no quota applies).
    static func throttlingLine(_ trials: [TrialResult]) -> String? {
        let watched = trials.filter { $0.measurement?.resources?.quotaPeriods != nil }
        let throttled = watched.filter { ($0.measurement?.resources?.throttledPeriods ?? 0) > 0 }
        guard !throttled.isEmpty else { return nil }
        let share = throttled.compactMap { r -> Double? in
            guard let u = r.measurement?.resources, let all = u.quotaPeriods, let hit = u.throttledPeriods, all > 0 else { return nil }
            return Double(hit) / Double(all)
        }.max() ?? 0
        let quotas = Set(throttled.compactMap { $0.environment.cpuQuota?.description }).sorted()
        let quota = quotas.isEmpty ? "" : " (quota " + quotas.joined(separator: " and ") + ")"
        return "CPU quota: the trial process's control group\(quota) was throttled during \(throttled.count) of \(watched.count) trial(s) "
            + "(in up to \(Formatting.percent(share)) of a trial's scheduling periods): "
            + "their throughput and latency tails show the quota, not only the code. Throttled: "
            + listed(throttled.map(\.trial.id), limit: 5) + "."
    }

    /// A scenario trial's outcome histogram: its rounds, then each outcome
    /// with its count and grade (and what an interesting or forbidden one
    /// means); nil for a workload's trial.
    static func outcomeBlock(_ r: TrialResult) -> String? {
        // A linearizability check's rounds all have the empty outcome: its
        // verdict says more.
        if let linearizability = r.linearizability { return "\(r.trial.id): \(linearizability.summary)" }
        guard let outcomes = r.outcomes, let rounds = r.rounds else { return nil }
        let rate = r.measurement?.roundsPerSecond.map { ", \(Formatting.rate($0)) rounds/s in the window" } ?? ""
        let rows = outcomes.map { o -> [String] in
            [o.outcome, Formatting.count(o.count), o.grade + (o.meaning.map { ": \($0)" } ?? "")]
        }
        let table = Formatting.table(["outcome", "count", "grade"], rows, rightAligned: [1])
        return "\(r.trial.id): \(Formatting.count(rounds)) rounds\(rate)\n" + table.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }

    /// `a, b, c and 4 more`.
    static func listed(_ ids: [String], limit: Int) -> String {
        ids.prefix(limit).joined(separator: ", ") + (ids.count > limit ? " and \(ids.count - limit) more" : "")
    }

    /// The outcome column: the outcome, the signal of a crash, and how it
    /// stands against the plan's `expect` when that is not "must pass".
    package static func outcomeCell(_ r: TrialResult) -> String {
        let signal = r.failure?.signal.map { " (\($0))" } ?? ""
        switch r.expectation {
        case .caught: return r.outcome.rawValue + signal + " (expected)"
        case .missed: return "passed (expected \(r.expectedText))"
        case .passed, .unexpected, .skipped:
            return r.outcome.rawValue + signal + (r.trial.expect == nil || r.outcome == .skipped ? "" : " (expected \(r.expectedText))")
        }
    }

    /// A trial's outcome as the first line of its details says it.
    static func verdict(_ r: TrialResult) -> String {
        switch r.expectation {
        case .caught: return "\(r.outcome.rawValue): caught, as expected"
        case .missed:
            return "passed, but the plan expects \(r.expectedText): the checks did not see the bug they are there to see"
        case .unexpected where r.trial.expect != nil:
            return "\(r.outcome.rawValue), but the plan expects \(r.expectedText)"
        default: return r.outcome.rawValue
        }
    }

    /// A trial's details: its verdict, first violations or failure, rerun
    /// command, and for a controlled trial its schedule, interleaving (drawn
    /// when `drawTrace`), shrinking and replay command; for a free-running
    /// failure control can run, the command that hunts for it under control
    /// and what a hunt found (its interleaving drawn when `drawHunt`).
    static func details(_ r: TrialResult, planFile: String, rerun: RerunCommand? = nil, drawTrace: Bool = true,
                        drawHunt: Bool = true) -> String {
        var lines = ["\(r.trial.id): \(verdict(r)) (seed \(r.trial.seed), fuzz \(r.trial.fuzz.profile.rawValue))"]
        if r.violations.count > 0 {
            lines.append("  \(r.violations.count) violation(s); first:")
            lines += r.violations.samples.prefix(5).map { "    " + $0.summaryLine }
            // The first data race in full: both stacks are what a reader fixes it from.
            if let race = r.violations.samples.first(where: { $0.kind == .dataRace }) {
                if !r.violations.samples.prefix(5).contains(race) { lines.append("    " + race.summaryLine) }
                lines += race.stackLines.map { "      " + $0 }
            }
        }
        lines += (r.linearizability?.failureLines ?? []).map { "    " + $0 }
        if let f = r.failure {
            lines.append("  " + f.message)
            if let stall = r.stall {
                lines += stall.workers.map { "    \($0.name): \($0.description)" + ($0.participant == nil ? " (\($0.completedOps) ops done)" : "") }
            }
            lines += CrashOutput.select(f.outputTail, limit: 8).map { "    | " + $0 }
        }
        lines.append("  rerun: " + (r.rerunCommand ?? r.makeRerunCommand(planFile: planFile)))
        lines += r.huntLines(planFile: planFile, rerun: rerun, drawTrace: drawHunt).map { "  " + $0 }
        lines += r.interleavingLines(planFile: planFile, rerun: rerun, drawTrace: drawTrace).map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    /// ` (2 caught, as expected; 1 expected to fail, but passed)`, or nothing
    /// when every trial is meant to pass.
    package static func expectationNote(_ trials: [TrialResult]) -> String {
        let caught = trials.filter { $0.expectation == .caught }.count
        let missed = trials.filter { $0.expectation == .missed }.count
        var notes: [String] = []
        if caught > 0 { notes.append("\(caught) caught, as expected") }
        if missed > 0 { notes.append("\(missed) expected to fail, but passed") }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
    }

    static func summaryLine(_ report: RunReport, exitCode: RunExitCode? = nil) -> String {
        var counts: [TrialOutcome: Int] = [:]
        for t in report.trials { counts[t.outcome, default: 0] += 1 }
        let parts = TrialOutcome.allCases.compactMap { o in counts[o].map { "\($0) \(o.rawValue)" } }
        return "\(report.trials.count) trial(s): " + (parts.isEmpty ? "none run" : parts.joined(separator: ", "))
            + expectationNote(report.trials)
            + (report.stop.map { " (\($0.summary))" } ?? (report.interrupted ? " (interrupted)" : ""))
            + (report.uncheckedProblem.map { "; \($0)" } ?? "")
            + "; exit code \((exitCode ?? report.exitCode).rawValue)"
    }
}
