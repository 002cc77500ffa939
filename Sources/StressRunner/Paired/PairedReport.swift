import Foundation
import StressCore

/// One side of a paired comparison: the executable and what it said about itself.
package struct PairedBuild: Sendable, Codable, Equatable {
    /// The executable's path, as given.
    public var executable: String
    /// `stressbench <version>` of that build.
    public var tool: String
    /// `debug` or `release`.
    public var buildConfiguration: String
    /// The compiler it was built with.
    public var swiftVersion: String
    /// ``BuildDescription/fingerprint`` of its description of the plan: the
    /// same on both sides, or nothing ran.
    public var fingerprint: String

    /// The side that `executable` described as `description`.
    public init(executable: String, description: BuildDescription) {
        self.executable = executable
        tool = description.tool
        buildConfiguration = description.buildConfiguration
        swiftVersion = description.swiftVersion
        fingerprint = description.fingerprint
    }
}

/// Everything `stressbench ab` produced: its `--json` file is this, encoded.
///
/// ``cells`` holds the verdicts, one per cell; ``oldTrials`` and
/// ``newTrials`` every record of each build's trials, as `run --json` would
/// write them, so nothing measured is lost.
package struct PairedReport: Sendable, Codable, Equatable {
    /// The schema identifier of this format; bumped on any incompatible change.
    public static let currentSchema = "stressbench.ab/1"

    /// ``currentSchema`` when written.
    public var schema: String
    /// `stressbench <version>` of the process that ran the comparison.
    public var tool: String
    /// The plan's name and file.
    public var plan: String
    public var planFile: String
    /// ISO 8601 times the comparison started and finished.
    public var startedAt: String
    public var finishedAt: String
    /// Where it ran.
    public var environment: EnvironmentInfo
    /// The old build (A) and the new one (B).
    public var old: PairedBuild
    public var new: PairedBuild
    /// Differences between the builds that did not stop the comparison
    /// (versions, compilers); nil when none.
    public var buildNotes: [String]?
    /// How the pairs were judged.
    public var settings: PairedSettings
    /// Pairs run per cell.
    public var pairsPerCell: Int
    /// Why the comparison stopped early (a signal, `--fail-fast`); nil when
    /// every pair ran.
    public var stop: RunStop?
    /// The verdict of every cell, in the plan's order.
    public var cells: [PairedCellComparison]
    /// Every trial of each build, in the order they ran.
    public var oldTrials: [TrialResult]
    public var newTrials: [TrialResult]
    /// The exit code, with its meaning: a copy of ``exitCode`` for readers of
    /// the file.
    public var exit: Exit

    /// An exit code and what it means.
    public struct Exit: Sendable, Codable, Equatable {
        /// The code (0, 1, 2, 3, 4, 130 or 143).
        public var code: Int32
        /// Its meaning in a few words.
        public var meaning: String
    }

    /// A report; ``exit`` is worked out from the rest.
    public init(
        plan: String, planFile: String, startedAt: Date, finishedAt: Date, old: PairedBuild, new: PairedBuild,
        buildNotes: [String], settings: PairedSettings, pairsPerCell: Int, stop: RunStop?,
        cells: [PairedCellComparison], oldTrials: [TrialResult], newTrials: [TrialResult]
    ) {
        schema = Self.currentSchema
        tool = "stressbench \(StressKitVersion.current)"
        self.plan = plan
        self.planFile = planFile
        self.startedAt = RunReport.timestamp(startedAt)
        self.finishedAt = RunReport.timestamp(finishedAt)
        environment = .current
        self.old = old
        self.new = new
        self.buildNotes = buildNotes.isEmpty ? nil : buildNotes
        self.settings = settings
        self.pairsPerCell = pairsPerCell
        self.stop = stop
        self.cells = cells
        self.oldTrials = oldTrials
        self.newTrials = newTrials
        exit = Exit(code: 0, meaning: "")
        let code = exitCode
        exit = Exit(code: code.rawValue, meaning: code.meaning)
    }

    /// The cells that regressed.
    public var regressions: [PairedCellComparison] { cells.filter { $0.verdict == .regressed } }

    /// Cells the statistics could judge: every one measured the same way by both builds.
    public var comparedCells: Int { cells.filter { $0.verdict != .notComparable }.count }

    /// Why this comparison cannot vouch for the new build, or nil: cells the
    /// two builds measured differently (the clock `auto` chose, say), or no
    /// cell at all. Exit code 2, as a baseline `compare` cannot use.
    public var coverageProblem: String? {
        let differently = cells.filter { $0.verdict == .notComparable }.count
        if cells.isEmpty { return "no cell was run" }
        guard differently > 0 else { return nil }
        return "\(differently) of \(cells.count) cell(s) were measured differently by the two builds (not-comparable)"
    }

    /// The exit status, as `compare` gives it: 130 or 143 when a signal
    /// stopped the comparison; else 3 for a crash, deadlock, hang, timeout or
    /// error in either build's trials, 1 for a violation, 2 for cells that
    /// could not be compared, 4 for a regressed cell, 0 otherwise.
    public var exitCode: RunExitCode {
        if let stop, stop.reason == .signal { return stop.signal == "SIGTERM" ? .terminated : .interrupted }
        let code = RunExitCode.forOutcomes((oldTrials + newTrials).map(\.outcome))
        guard code == .passed else { return code }
        if coverageProblem != nil { return .usage }
        return regressions.isEmpty ? .passed : .performanceRegression
    }

    /// One line on how the cells were judged, for the reports.
    public var method: String {
        let s = settings
        return "\(s.metric.rawValue) of each pair of trials (old and new, same trial, back to back, alternating which runs first), "
            + "median ratio new/old with a \(Formatting.percent(s.confidence)) bootstrap interval over the pairs; "
            + "two-sided \(s.test.title) test on the log-ratios, Holm-corrected over \(cells.filter { $0.pValueAdjusted != nil }.count) cell(s); "
            + "tolerance ±\(Formatting.percent(s.tolerance))"
    }
}
