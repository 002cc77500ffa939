import Foundation
import StressCore

/// The exit status of a run, as documented in the README and `--help`.
///
/// When several apply, the most severe wins: a usage error (nothing ran) over
/// a crash, deadlock or timeout (results are incomplete) over an invariant
/// violation over a performance regression (2 > 3 > 1 > 4): a build that is
/// wrong is reported as wrong before it is reported as slow. A baseline the
/// gate could not compare with the run is a usage error too, but the trials
/// did run, so it ranks just above a regression: 3 > 1 > 2 > 4.
public enum RunExitCode: Int32, Sendable, Codable {
    /// Every trial passed, or failed the way its plan expects (`expect`).
    case passed = 0
    /// At least one trial broke an invariant where its plan did not expect
    /// it, or passed where its plan expects a failure (and none crashed or
    /// timed out unexpectedly).
    case violations = 1
    /// The plan or the command line was wrong and nothing ran; or the
    /// baseline given could not be compared with the run (no cell in common,
    /// or cells missing without `--allow-partial`).
    case usage = 2
    /// At least one trial crashed, deadlocked, hung, timed out, or could not be run or read, where its plan does not expect it.
    case trialFailures = 3
    /// Every trial passed, but a threshold failed or a cell regressed against the baseline.
    case performanceRegression = 4
    /// The run was interrupted by SIGINT (128 + 2): what finished is kept, the
    /// rest is `skipped`. Outranks every other code.
    case interrupted = 130
    /// The run was ended by SIGTERM (128 + 15), like ``interrupted``.
    case terminated = 143

    /// The code for a set of trial records, each judged against what its plan
    /// expects of it: a trial that fails the way the plan expects counts as
    /// passing; one the plan expects to fail that passed counts as a
    /// violation (1), since the checks did not see what they are there to see.
    package static func forResults(_ results: [TrialResult]) -> RunExitCode {
        var code = RunExitCode.passed
        for r in results {
            switch r.expectation {
            case .passed, .caught, .skipped: continue
            case .missed: code = .violations
            case .unexpected:
                let c = forOutcomes([r.outcome])
                if c == .trialFailures { return c }
                if c == .violations { code = c }
            }
        }
        return code
    }

    /// The code for a set of trial outcomes, every trial expected to pass.
    package static func forOutcomes<S: Sequence>(_ outcomes: S) -> RunExitCode where S.Element == TrialOutcome {
        var code = RunExitCode.passed
        for o in outcomes {
            switch o {
            case .timeout, .crashed, .error, .deadlock, .hang: return .trialFailures
            case .violated: code = .violations
            case .passed, .skipped: break
            }
        }
        return code
    }
}

/// Everything a run produced: the JSON results file is this, encoded.
public struct RunReport: Sendable, Codable, Equatable {
    /// The schema identifier of this format; bumped on any incompatible change.
    public static let currentSchema = "stressbench.results/1"

    /// ``currentSchema`` when written.
    public var schema: String
    /// The tool and its version that wrote the report: `stressbench <version>`.
    public var tool: String
    /// The plan's name.
    public var plan: String
    /// The plan file the run read, as it was given on the command line.
    public var planFile: String
    /// When the run started (ISO 8601).
    public var startedAt: String
    /// When the run ended (ISO 8601).
    public var finishedAt: String
    /// Where it ran.
    package var environment: EnvironmentInfo
    /// True when the run was stopped before every trial had run (the `stop` field says why).
    public var interrupted: Bool
    /// The slice of the matrix this run ran (`--shard i/n`); nil for a whole
    /// run (and for a merged file).
    package var shard: TrialShard?
    /// How many trials the plan's whole matrix has (before `--shard` and
    /// `--only`), so `merge` can tell a complete set of shards from one with a
    /// shard missing. Nil in files written before it was recorded.
    public var matrixTrials: Int?
    /// Why the run stopped early (a signal, `--fail-fast`); nil when every
    /// selected trial ran. The trials never started are `skipped` records.
    package var stop: RunStop?
    /// One record per trial, in the order they ran (the plan's order, or a
    /// shard's slice of it).
    public var trials: [TrialResult]
    /// Thresholds and the baseline comparison; nil when the run was not gated.
    package var gate: GateReport?
    /// How to rerun this run's trials and cells exactly (the executable and
    /// the command-line overrides in effect); nil in files from before it was recorded.
    package var rerun: RerunCommand?
    /// True when the run accepts trials it could not run (`--allow-skipped`):
    /// see ``uncheckedTrials``. Nil (written as nothing) otherwise.
    public var skipsAllowed: Bool?
    /// Every cell summed up (the gate metric's median and interval, the
    /// outcomes), written by `run` with its JSON; nil in files from before it was.
    package var cells: [CellSummary]?

    /// A report.
    package init(
        plan: String, planFile: String, startedAt: Date, finishedAt: Date, interrupted: Bool = false, stop: RunStop? = nil,
        trials: [TrialResult]
    ) {
        schema = Self.currentSchema
        tool = "stressbench \(StressKitVersion.current)"
        self.plan = plan
        self.planFile = planFile
        self.startedAt = Self.timestamp(startedAt)
        self.finishedAt = Self.timestamp(finishedAt)
        environment = .current
        self.interrupted = interrupted || stop != nil
        self.stop = stop
        self.trials = trials
    }

    /// The run's exit status: 130 or 143 when a signal stopped it, else from
    /// the outcomes and the gate. A baseline that could not be compared (2)
    /// ranks with the gate, below what the trials themselves say (3, 1): they
    /// did run, and a crash or a violation is the more important news.
    public var exitCode: RunExitCode {
        if let stop, stop.reason == .signal { return stop.signal == "SIGTERM" ? .terminated : .interrupted }
        let code = RunExitCode.forResults(trials)
        // Nothing checked is not success: what was skipped for lack of
        // something ranks with a trial that could not be run (3).
        if !uncheckedTrials.isEmpty { return .trialFailures }
        guard code == .passed, let gate else { return code }
        if gate.coverageProblem != nil { return .usage }
        return gate.failed ? .performanceRegression : .passed
    }

    /// The trials whose skipping fails the run (exit code 3), because then
    /// the run checked less than its plan asks: each trial skipped for lack
    /// of something (the failure's `missing` field: jemalloc, the interposer, a
    /// child process) that its plan expects to fail, since the bug it is
    /// there to catch went unchecked; or every trial, when every one was
    /// skipped so. Empty when ``skipsAllowed``, and for a run that stopped
    /// early (a signal or `--fail-fast`: its own exit code says so).
    public var uncheckedTrials: [TrialResult] {
        guard skipsAllowed != true, stop == nil else { return [] }
        let lacking = trials.filter { $0.outcome == .skipped && $0.failure?.missing != nil }
        if !lacking.isEmpty && lacking.count == trials.count { return lacking }
        return lacking.filter { !$0.expectedOutcomes.contains(.passed) }
    }

    /// Why ``uncheckedTrials`` fail the run, in one clause for the summary
    /// line; nil when they are none.
    public var uncheckedProblem: String? {
        let unchecked = uncheckedTrials
        guard !unchecked.isEmpty else { return nil }
        let what = unchecked.count == trials.count
            ? "every trial was skipped, so nothing was checked"
            : "\(unchecked.count) trial(s) the plan expects to fail were skipped, so the bugs they are there to catch went unchecked"
        let lacks = Set(unchecked.compactMap { $0.failure?.missing }).sorted().joined(separator: ", ")
        return "\(what) (for lack of \(lacks): the skipped lines above say how to get it; --allow-skipped accepts the skips)"
    }

    static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}

/// The JSON conventions of every file stressbench writes and reads.
public enum ResultCoding {
    /// Pretty, key-sorted JSON (stable diffs between runs).
    ///
    /// - Parameter pretty: Indented (the results file) or one line per value (streams).
    /// - Returns: The encoder results files are written with.
    public static func encoder(pretty: Bool = true) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    /// The decoder that reads what ``encoder(pretty:)`` writes.
    ///
    /// - Returns: The decoder results files are read with.
    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }
}
