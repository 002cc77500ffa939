/// A Markdown summary of a run, for `$GITHUB_STEP_SUMMARY` or a pull-request
/// comment: the verdict, one row per cell, the baseline comparison, failed
/// thresholds, and every trial that did not pass with its rerun command.
public enum MarkdownReport {
    /// The whole text.
    public static func render(_ report: RunReport) -> String {
        let code = report.exitCode
        let mark = code == .passed ? "✅" : "❌"
        var out = "## \(mark) stressbench `\(report.plan)`: \(code.meaning) (exit code \(code.rawValue))\n\n"
        let cells = Cell.group(report.trials)
        let env = report.environment
        out += "\(TableReport.summaryLine(report).replacingOccurrences(of: "; exit code \(code.rawValue)", with: "")) in \(cells.count) cell(s). "
        out += "\(env.cpu), \(env.cores) cores, \(env.os), \(env.buildConfiguration) build; started \(report.startedAt).\n\n"
        out += cellTable(cells)
        if let c = report.gate?.comparison { out += "\n" + comparisonTable(c) }
        if let gate = report.gate, !gate.thresholds.isEmpty { out += "\n" + thresholdList(gate.thresholds, of: report) }
        let (problems, skipped) = TableReport.problemsAndSkippedGroups(report.trials)
        if !problems.isEmpty || !skipped.isEmpty {
            out += "\n### Trials that did not pass\n\n"
            for group in skipped {
                out += "- \(group.ids.count) trials **skipped**: \(escape(group.reason)) (" + TableReport.listed(group.ids.map { "`\($0)`" }, limit: 5) + ")\n"
            }
            for r in problems {
                let first = r.violations.samples.first?.summaryLine ?? r.failure?.message ?? ""
                out += "- `\(r.trial.id)`: **\(r.outcome.rawValue)**" + (first.isEmpty ? "" : ": " + escape(first)) + "\n"
                out += "  rerun: `\(r.rerunCommand ?? r.makeRerunCommand(planFile: report.planFile))`\n"
            }
        }
        return out
    }

    /// One row per cell: repetitions, outcomes, median throughput, latency
    /// percentiles of the merged histogram, violations.
    static func cellTable(_ cells: [Cell]) -> String {
        var out = "| cell | reps | ops/s (median) | p50 | p99 | p99.9 | max | violations | outcomes |\n"
        out += "|---|--:|--:|--:|--:|--:|--:|--:|---|\n"
        for cell in cells {
            let latency = { (m: GateMetric) in cell.value(m).map { m.format($0) } ?? "-" }
            var counts: [TrialOutcome: Int] = [:]
            for t in cell.trials { counts[t.outcome, default: 0] += 1 }
            let outcomes = TrialOutcome.allCases.compactMap { o in counts[o].map { "\($0) \(o.rawValue)" } }.joined(separator: ", ")
            let row = ["`\(cell.key)`", String(cell.trials.count),
                       cell.value(.opsPerSecond).map(Formatting.rate) ?? "-",
                       latency(.p50), latency(.p99), latency(.p999), latency(.max),
                       String(Int(cell.value(.violations) ?? 0)), outcomes]
            out += "| " + row.map(escape).joined(separator: " | ") + " |\n"
        }
        return out
    }

    static func comparisonTable(_ c: ComparisonReport) -> String {
        let s = c.settings
        var out = "### Baseline comparison\n\n"
        out += "\(s.metric.rawValue): median new/baseline with a \(Formatting.percent(s.confidence)) bootstrap interval, two-sided Mann-Whitney U, tolerance ±\(Formatting.percent(s.tolerance)).\n\n"
        out += "| cell | n | ratio [interval] | p | verdict | why |\n|---|--:|--:|--:|---|---|\n"
        for cell in c.cells {
            let verdict = cell.verdict == .regressed ? "**regressed**" : cell.verdict.rawValue
            let row = ["`\(cell.cell)`", "\(cell.baselineSamples.count)/\(cell.newSamples.count)",
                       Formatting.ratio(cell.ratio, cell.ratioLow, cell.ratioHigh), cell.pValue.map(Formatting.pValue) ?? "-",
                       verdict, cell.reason]
            out += "| " + row.map(escape).joined(separator: " | ") + " |\n"
        }
        if !c.onlyInBaseline.isEmpty {
            out += "\nOnly in the baseline (not compared): " + c.onlyInBaseline.map { "`\($0)`" }.joined(separator: ", ") + "\n"
        }
        return out
    }

    static func thresholdList(_ checks: [ThresholdCheck], of report: RunReport) -> String {
        let failed = checks.filter { $0.status == .failed }
        var out = "### Thresholds\n\n\(checks.count) check(s): \(checks.count - failed.count) passed or not evaluated, \(failed.count) failed.\n"
        for c in checks where c.status != .passed {
            out += "\n- \(c.status == .failed ? "**failed**" : "not evaluated") `\(c.cell)`: \(escape(c.message))"
            if c.status == .failed { out += "  \n  rerun: `\(GateSummary.rerunCommand(c.cell, of: report))`" }
        }
        return out + "\n"
    }

    /// Keeps a cell's text from breaking the table or turning into markup.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "<", with: "&lt;")
    }
}
