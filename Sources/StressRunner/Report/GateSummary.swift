import StressCore

/// The gate's part of the terminal report: failed thresholds and the baseline
/// comparison table, each failing line with the command that reruns the cell.
package enum GateSummary {
    /// The text (empty when the run was not gated); rerun commands use `rerun`.
    public static func render(_ gate: GateReport?, planFile: String, rerun: RerunCommand = .standard) -> String {
        guard let gate else { return "" }
        var text = ""
        if !gate.thresholds.isEmpty {
            text += thresholdSection(gate.thresholds, planFile: planFile, rerun: rerun)
        }
        if let c = gate.comparison {
            if !text.isEmpty { text += "\n" }
            text += comparisonSection(c, planFile: planFile, rerun: rerun)
        }
        return text
    }

    static func thresholdSection(_ checks: [ThresholdCheck], planFile: String, rerun: RerunCommand) -> String {
        let cells = Set(checks.map(\.cell)).count
        var counts: [ThresholdCheck.Status: Int] = [:]
        for c in checks { counts[c.status, default: 0] += 1 }
        let parts = [ThresholdCheck.Status.passed, .failed, .notEvaluated].compactMap { s in counts[s].map { "\($0) \(s.rawValue)" } }
        var lines = ["Thresholds: \(checks.count) check(s) on \(cells) cell(s): \(parts.joined(separator: ", "))"]
        for c in checks where c.status != .passed {
            lines.append("  \(c.status == .failed ? "FAILED" : "note:") \(c.cell): \(c.message)")
            if c.status == .failed { lines.append("    rerun: \(rerun.cell(c.cell, planFile: planFile))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func comparisonSection(_ c: ComparisonReport, planFile: String, rerun: RerunCommand) -> String {
        let s = c.settings
        var text = "Baseline comparison\(c.baselineFile.map { " with \($0)" } ?? ""): \(ComparisonReport.method(c)).\n"
        if let note = c.environmentNote { text += "note: \(note)\n" }
        text += "\n"
        let header = ["cell", "n", "baseline", "new", "ratio [interval]", "p", "p adj", "verdict"]
        let rows = c.cells.map { cell -> [String] in
            [cell.cell.description, "\(cell.baselineSamples.count)/\(cell.newSamples.count)",
             Statistics.median(cell.baselineSamples).map { s.metric.format($0) } ?? "-",
             Statistics.median(cell.newSamples).map { s.metric.format($0) } ?? "-",
             Formatting.ratio(cell.ratio, cell.ratioLow, cell.ratioHigh),
             cell.pValue.map(Formatting.pValue) ?? "-", cell.pValueAdjusted.map(Formatting.pValue) ?? "-", cell.verdict.rawValue]
        }
        text += Formatting.table(header, rows, rightAligned: [1, 2, 3, 5, 6]) + "\n"
        let notable = c.cells.filter { $0.verdict != .unchanged }
        if !notable.isEmpty {
            text += "\n" + notable.map { cell in
                var line = "  \(cell.verdict.rawValue): \(cell.cell): \(cell.reason)"
                if cell.verdict == .regressed { line += "\n    rerun: \(rerun.cell(cell.cell, planFile: planFile))" }
                return line
            }.joined(separator: "\n") + "\n"
        }
        if !c.onlyInBaseline.isEmpty {
            text += "  only in the baseline (not compared): \(c.onlyInBaseline.map(\.description).joined(separator: ", "))\n"
        }
        var counts: [ComparisonVerdict: Int] = [:]
        for cell in c.cells { counts[cell.verdict, default: 0] += 1 }
        text += "\(c.cells.count) cell(s): " + ComparisonVerdict.allCases.compactMap { v in counts[v].map { "\($0) \(v.rawValue)" } }.joined(separator: ", ") + "\n"
        if let problem = c.coverageProblem { text += "FAILED: the baseline does not cover this run: \(problem)\n" }
        return text
    }

    /// The command that reruns every repetition of `cell` (the overrides of
    /// the run that made `report`, when it recorded them).
    public static func rerunCommand(_ cell: CellKey, of report: RunReport) -> String {
        (report.rerun ?? .standard).cell(cell, planFile: report.planFile)
    }
}
