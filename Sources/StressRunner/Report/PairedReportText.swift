import Foundation
import StressCore

/// The text forms of a paired comparison (``PairedReport``): the terminal
/// summary, Markdown for a pull request and JUnit XML for CI, each with one
/// line, row or test case per cell.
package enum PairedReportText {
    /// The command that runs the pairs of `cell` again, with the same builds.
    public static func rerunCommand(_ cell: CellKey, of report: PairedReport, executable: String = "stressbench") -> String {
        let allocator = cell.allocator.map { "/\($0)" } ?? ""
        return [executable, "ab", report.old.executable, report.new.executable, report.planFile,
                "--only", "\(cell.experiment)/\(cell.strategy)\(allocator)/t\(cell.threads)", "--pairs", String(report.pairsPerCell)]
            .map(RerunCommand.quoted).joined(separator: " ")
    }

    /// The terminal summary: the builds, one row per cell, then every cell
    /// that is not `unchanged` with its reason, and the exit code.
    public static func summary(_ r: PairedReport, executable: String = "stressbench") -> String {
        let s = r.settings
        var text = "Paired comparison of \(r.plan) (\(r.planFile)): \(r.pairsPerCell) pair(s) per cell\n"
        text += "  old: \(r.old.executable) (\(r.old.tool), \(r.old.buildConfiguration))\n"
        text += "  new: \(r.new.executable) (\(r.new.tool), \(r.new.buildConfiguration))\n"
        for note in r.buildNotes ?? [] { text += "  note: \(note)\n" }
        text += "Method: \(r.method).\n\n"
        let header = ["cell", "pairs", "old", "new", "ratio [interval]", "p", "p adj", "verdict"]
        let rows = r.cells.map { c -> [String] in
            [c.cell.description, "\(c.completePairs)/\(c.pairs.count)",
             c.oldMedian.map(s.metric.format) ?? "-", c.newMedian.map(s.metric.format) ?? "-",
             Formatting.ratio(c.ratio, c.ratioLow, c.ratioHigh),
             c.pValue.map(Formatting.pValue) ?? "-", c.pValueAdjusted.map(Formatting.pValue) ?? "-", c.verdict.rawValue]
        }
        text += Formatting.table(header, rows, rightAligned: [1, 2, 3, 5, 6]) + "\n"
        let notable = r.cells.filter { $0.verdict != .unchanged }
        if !notable.isEmpty {
            text += "\n" + notable.map { c in
                var line = "  \(c.verdict.rawValue): \(c.cell): \(c.reason)"
                if c.verdict == .regressed { line += "\n    rerun: \(rerunCommand(c.cell, of: r, executable: executable))" }
                return line
            }.joined(separator: "\n") + "\n"
        }
        let failed = (r.oldTrials.map { ("old", $0) } + r.newTrials.map { ("new", $0) }).filter { $0.1.outcome.isFailure }
        for (side, t) in failed.prefix(10) {
            let first = t.violations.samples.first?.summaryLine ?? t.failure?.message ?? ""
            text += "  \(side) build: \(t.trial.id): \(t.outcome.rawValue)\(first.isEmpty ? "" : ": " + first)\n"
            if let rerun = t.rerunCommand { text += "    rerun: \(rerun)\n" }
        }
        if failed.count > 10 { text += "  ... and \(failed.count - 10) more trial(s) that did not pass\n" }
        text += "\(r.cells.count) cell(s): " + verdictCounts(r) + "\n"
        if let stop = r.stop { text += "\(stop.summary): \(completedPairs(r)) complete pair(s) judged, the rest not run\n" }
        if let problem = r.coverageProblem { text += "FAILED: \(problem)\n" }
        return text
    }

    /// Pairs with both figures, over every cell.
    static func completedPairs(_ r: PairedReport) -> Int { r.cells.map(\.completePairs).reduce(0, +) }

    /// `3 unchanged, 1 regressed`.
    static func verdictCounts(_ r: PairedReport) -> String {
        var counts: [ComparisonVerdict: Int] = [:]
        for c in r.cells { counts[c.verdict, default: 0] += 1 }
        return ComparisonVerdict.allCases.compactMap { v in counts[v].map { "\($0) \(v.rawValue)" } }.joined(separator: ", ")
    }

    /// A Markdown summary (for `$GITHUB_STEP_SUMMARY` or a pull-request comment).
    public static func markdown(_ r: PairedReport, executable: String = "stressbench") -> String {
        let code = r.exitCode
        let esc = MarkdownReport.escape
        var out = "## \(code == .passed ? "✅" : "❌") stressbench ab `\(esc(r.plan))`: \(code.meaning) (exit code \(code.rawValue))\n\n"
        out += "Old build `\(esc(r.old.executable))` (\(esc(r.old.tool)), \(r.old.buildConfiguration)) against new build "
            + "`\(esc(r.new.executable))` (\(esc(r.new.tool)), \(r.new.buildConfiguration)); \(r.pairsPerCell) pair(s) per cell; "
            + "\(esc(r.environment.cpu)), \(esc(r.environment.coresDescription)); started \(r.startedAt).\n\n"
        for note in r.buildNotes ?? [] { out += "**Note:** \(esc(note)).\n\n" }
        out += "Method: \(esc(r.method)).\n\n"
        out += "| cell | pairs | old | new | ratio [interval] | p | p adj | verdict | why |\n|---|--:|--:|--:|--:|--:|--:|---|---|\n"
        for c in r.cells {
            let verdict = c.verdict == .regressed ? "**regressed**" : c.verdict.rawValue
            let row = ["`\(c.cell)`", "\(c.completePairs)/\(c.pairs.count)",
                       c.oldMedian.map(r.settings.metric.format) ?? "-", c.newMedian.map(r.settings.metric.format) ?? "-",
                       Formatting.ratio(c.ratio, c.ratioLow, c.ratioHigh), c.pValue.map(Formatting.pValue) ?? "-",
                       c.pValueAdjusted.map(Formatting.pValue) ?? "-", verdict, c.reason]
            out += "| " + row.map(esc).joined(separator: " | ") + " |\n"
        }
        out += "\n\(r.cells.count) cell(s): \(verdictCounts(r)).\n"
        if let stop = r.stop { out += "\n**\(esc(stop.summary))**: \(completedPairs(r)) complete pair(s) judged, the rest not run.\n" }
        for c in r.regressions { out += "\n- rerun `\(c.cell)`: `\(rerunCommand(c.cell, of: r, executable: executable))`" }
        if !r.regressions.isEmpty { out += "\n" }
        if let problem = r.coverageProblem { out += "\n**\(esc(problem)).**\n" }
        let failed = (r.oldTrials.map { ("old", $0) } + r.newTrials.map { ("new", $0) }).filter { $0.1.outcome.isFailure }
        if !failed.isEmpty {
            out += "\n### Trials that did not pass\n\n"
            for (side, t) in failed {
                let first = t.violations.samples.first?.summaryLine ?? t.failure?.message ?? ""
                out += "- \(side) build, `\(t.trial.id)`: **\(t.outcome.rawValue)**" + (first.isEmpty ? "" : ": " + esc(first)) + "\n"
                if let rerun = t.rerunCommand { out += "  rerun: `\(rerun)`\n" }
            }
        }
        return out
    }

    /// JUnit XML: a suite with one test case per cell (a regression fails
    /// it), and one suite per build with a test case per trial (a violation,
    /// crash, deadlock, hang, timeout or error fails it).
    public static func junit(_ r: PairedReport, executable: String = "stressbench") -> String {
        let xml = JUnitReport.xml
        let classname = xml("stressbench.\(r.plan).ab")
        var cases: [String] = []
        var failures = 0
        if let problem = r.coverageProblem {
            failures += 1
            cases.append("    <testcase classname=\"\(classname)\" name=\"builds are comparable\">\n      <failure type=\"coverage\" message=\"\(xml(problem))\">\(xml(problem))</failure>\n    </testcase>")
        }
        for c in r.cells {
            let summary = "\(c.verdict.rawValue): \(r.settings.metric.rawValue) ratio new/old \(Formatting.ratio(c.ratio, c.ratioLow, c.ratioHigh)); \(c.reason)"
            let open = "    <testcase classname=\"\(classname)\" name=\"\(xml("\(c.cell): \(r.settings.metric.rawValue) new vs old"))\""
            if c.verdict == .regressed {
                failures += 1
                let body = summary + "\nrerun: " + rerunCommand(c.cell, of: r, executable: executable)
                cases.append(open + ">\n      <failure type=\"regression\" message=\"\(xml(summary))\">\(xml(body))</failure>\n    </testcase>")
            } else {
                cases.append(open + ">\n      <system-out>\(xml(summary))</system-out>\n    </testcase>")
            }
        }
        var errors = 0
        if let stop = r.stop, stop.reason == .signal {
            errors = 1
            cases.insert("    <testcase classname=\"\(classname)\" name=\"run\">\n      <error type=\"interrupted\" message=\"\(xml("\(stop.summary): exit code \(r.exitCode.rawValue)"))\"/>\n    </testcase>", at: 0)
        }
        var suites = ["  <testsuite name=\"\(xml(r.plan)).ab\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\">"]
            + cases + ["  </testsuite>"]
        var tests = cases.count, skippedTotal = 0
        for (side, trials) in [("old", r.oldTrials), ("new", r.newTrials)] {
            let bad = trials.filter { $0.outcome.isFailure }, skipped = trials.filter { $0.outcome == .skipped }
            failures += bad.count
            skippedTotal += skipped.count
            tests += trials.count
            suites.append("  <testsuite name=\"\(xml("\(r.plan).\(side)"))\" tests=\"\(trials.count)\" failures=\"\(bad.count)\" errors=\"0\" skipped=\"\(skipped.count)\">")
            for t in trials {
                let open = "    <testcase classname=\"\(xml("stressbench.\(r.plan).\(side).\(t.trial.experiment)"))\" name=\"\(xml(JUnitReport.caseName(t.trial)))\""
                let message = t.violations.samples.first?.summaryLine ?? t.failure?.message ?? t.outcome.rawValue
                if t.outcome == .skipped {
                    suites.append(open + ">\n      <skipped message=\"\(xml(message))\"/>\n    </testcase>")
                } else if !t.outcome.isFailure {
                    suites.append(open + "/>")
                } else {
                    let body = message + (t.rerunCommand.map { "\nrerun: " + $0 } ?? "")
                    suites.append(open + ">\n      <failure type=\"\(t.outcome.rawValue)\" message=\"\(xml("\(t.outcome.rawValue): \(message)"))\">\(xml(body))</failure>\n    </testcase>")
                }
            }
            suites.append("  </testsuite>")
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="stressbench ab" tests="\(tests)" failures="\(failures)" errors="\(errors)" skipped="\(skippedTotal)">
            \(suites.joined(separator: "\n"))
            </testsuites>

            """
    }
}
