import StressCore
import StressRunner

/// What a ``StressTest`` run did: every trial's record, which of them failed,
/// and, for the first failure, the message a test fails with.
public struct StressTestReport: Sendable {
    /// The run's report, as `stressbench run` would write it (every
    /// ``TrialResult`` with its measurement, violations and stall report).
    public let run: RunReport
    /// What the test ran (`workload counter`).
    public let subject: String
    /// Where it was run from.
    public let callSite: StressTestCallSite
    /// The test it ran in, when known: rerun commands select it.
    public let test: StressTest.TestID?

    /// A report.
    package init(run: RunReport, subject: String, callSite: StressTestCallSite, test: StressTest.TestID?) {
        self.run = run
        self.subject = subject
        self.callSite = callSite
        self.test = test
    }

    /// Every trial, in the order they ran.
    public var trials: [TrialResult] { run.trials }

    /// The trials that did not do what they must: a failure where none was
    /// expected, another failure than the one expected, or a pass where a
    /// failure was expected (the checks did not see the bug).
    public var failures: [TrialResult] { trials.filter { $0.expectation.isFailure } }

    /// The trials that failed as ``StressTest/expect(_:)`` said they must:
    /// "caught, as expected".
    public var caught: [TrialResult] { trials.filter { $0.expectation == .caught } }

    /// True when every trial did what it must (also when none ran: a rerun
    /// that selects a trial of another stress test runs none of this one).
    public var succeeded: Bool { failures.isEmpty }

    /// The first failure as an error to throw or record, or nil on success.
    public var failure: StressTestFailure? { failures.first.map { StressTestFailure(report: self, trial: $0) } }

    /// `4 trials: 3 passed, 1 violated (1 caught, as expected)`.
    public var summary: String {
        var counts: [TrialOutcome: Int] = [:]
        for t in trials { counts[t.outcome, default: 0] += 1 }
        let parts = TrialOutcome.allCases.compactMap { o in counts[o].map { "\($0) \(o.rawValue)" } }
        let note = TableReport.expectationNote(trials)
        return "\(trials.count) trial\(trials.count == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")) + note
    }

    /// The command that reruns exactly `trial` (its id and seed) in the test
    /// that ran it:
    /// `STRESSBENCH_TRIAL=counter/unsynchronized/t2/r0 STRESSBENCH_SEED=80552 swift test --filter 'StressKitTests.CounterTests/testCounter'`.
    /// The seed fixes every random choice of the harness (operations, keys,
    /// fuzzing); the operating system's schedule is not replayed, so a rare
    /// race may take a few reruns to show again.
    public func rerunCommand(for trial: TrialResult) -> String {
        let selection = "\(StressTest.trialVariable)=\(RerunCommand.quoted(trial.trial.id)) \(StressTest.seedVariable)=\(trial.trial.seed)"
        // Without the test's identity: the function's name, which selects it
        // (and any test whose name contains it; their stress tests have no
        // trial of this id and run nothing).
        let command = test?.swiftTestCommand
            ?? "swift test --filter \(RerunCommand.quoted(callSite.function.split(separator: "(").first.map(String.init) ?? callSite.function))"
        return "\(selection) \(command)"
    }
}

/// A stress test that did not do what it must: its description is the
/// message a test fails with. The first line says which trial, how it ended,
/// its seed and the first violation (or the deadlock, or the crash's cause);
/// a controlled trial's interleaving follows, drawn one column per worker
/// (and how it was shrunk, or what exploring its schedules found); a free
/// trial's failure that control can run is followed by what hunting for it
/// under control found (``StressTest/hunt(seconds:)``), or by one line that
/// offers that hunt; the last line is a command that reruns that trial.
///
/// ```text
/// StressTest of workload counter at CounterTests.swift:42: 1 of 2 trials failed; the first:
///   counter/unsynchronized/t2/r0: violated (seed 80552, fuzz yield): thread 1, op #318 increment/store: lost update: …
///   rerun: STRESSBENCH_TRIAL=counter/unsynchronized/t2/r0 STRESSBENCH_SEED=80552 swift test --filter …
/// ```
public struct StressTestFailure: Error, Sendable, CustomStringConvertible {
    /// The whole run.
    public let report: StressTestReport
    /// The first trial that failed.
    public let trial: TrialResult

    /// The failed trial's seed.
    public var seed: UInt64 { trial.trial.seed }

    /// The command that reruns the failed trial (``StressTestReport/rerunCommand(for:)``).
    public var rerunCommand: String { report.rerunCommand(for: trial) }

    /// What went wrong, in one line: the first violation as its worker saw
    /// it, the watchdog's summary of a deadlock or hang, or a crash and the
    /// cause its output names; for a bug expected and not seen, that.
    public var problem: String {
        if trial.expectation == .missed {
            return "the checks did not see the bug they are there to see"
        }
        var problem = trial.problemLine
        if let cause = trial.crashCause, !problem.contains(cause) { problem += problem.isEmpty ? cause : " (\(cause))" }
        if trial.violations.count > 1 { problem += " [\(trial.violations.count) violations in all]" }
        return problem
    }

    /// How the trial ended against what it must do: `violated`,
    /// `passed, but expected violated`.
    public var verdict: String {
        trial.trial.expect == nil ? trial.outcome.rawValue : "\(trial.outcome.rawValue), but expected \(trial.expectedText)"
    }

    /// The message: see the type's description.
    public var description: String {
        let failed = report.failures.count
        var lines = ["StressTest of \(report.subject) at \(report.callSite): \(failed) of \(report.trials.count) trials failed; the first:"]
        let problem = self.problem
        lines.append("  \(trial.trial.id): \(verdict) (seed \(seed), fuzz \(trial.trial.fuzz.profile.rawValue))"
                     + (problem.isEmpty ? "" : ": \(problem)"))
        if let linearizability = trial.linearizability, linearizability.verdict == .violated {
            lines += linearizability.failureLines.map { "    \($0)" }
        }
        if let race = trial.violations.samples.first(where: { $0.kind == .dataRace }) {
            // Both stacks of the first data race: where to look, on each side.
            if trial.violations.samples.first != race { lines.append("    " + race.summaryLine) }
            lines += race.stackLines.map { "    " + $0 }
        }
        if let stall = trial.stall {
            lines += stall.workers.prefix(8).map { "    \($0.name): \($0.description)" }
        } else if trial.outcome == .crashed || trial.outcome == .error || trial.outcome == .timeout {
            lines += CrashOutput.select((trial.failure?.outputTail ?? []).filter { !Self.isTestLibraryLine($0) }, limit: 6).map { "    | \($0)" }
        }
        // A controlled failure explains itself: who did what, in which order.
        if let trace = TraceText.block(trial) { lines += trace.map { "  " + $0 } }
        if let shrink = trial.shrink { lines.append("  " + TraceText.shrinkLine(shrink)) }
        if let exploration = trial.exploration { lines.append("  " + ExplorationText.line(exploration)) }
        // A free failure has no trace: its hunt under control, or the offer of one.
        lines += huntLines.map { "  " + $0 }
        lines.append("  rerun: \(rerunCommand)")
        return lines.joined(separator: "\n")
    }

    /// A line an isolated trial's test binary printed as a test library
    /// (`Test Case '…' started`, `◇ Test run started.`), not as the trial.
    static func isTestLibraryLine(_ line: String) -> Bool {
        ["Test Suite '", "Test Case '", "◇ ", "↳ "].contains { line.hasPrefix($0) }
    }
}
