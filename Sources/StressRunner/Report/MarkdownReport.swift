import StressCore

/// A Markdown summary of a run, for `$GITHUB_STEP_SUMMARY` or a pull-request
/// comment: the verdict, one row per cell, the baseline comparison, failed
/// thresholds, and every trial that did not pass with its rerun command.
package enum MarkdownReport {
    /// The whole text.
    public static func render(_ report: RunReport) -> String {
        let code = report.exitCode
        let mark = code == .passed ? "✅" : "❌"
        var out = "## \(mark) stressbench `\(report.plan)`: \(code.meaning) (exit code \(code.rawValue))\n\n"
        let cells = Cell.group(report.trials)
        let env = report.environment
        out += "\(TableReport.summaryLine(report).replacingOccurrences(of: "; exit code \(code.rawValue)", with: "")) in \(cells.count) cell(s). "
        out += "\(env.cpu), \(env.coresDescription), \(env.os), \(env.buildConfiguration) build; started \(report.startedAt).\n\n"
        if let quota = TableReport.throttlingLine(report.trials) { out += "**\(escape(quota))**\n\n" }
        if let control = TableReport.controlLine(report.trials) { out += "_\(escape(control))_\n\n" }
        out += folded(cellTable(cells), rows: cells.count, summary: "\(cells.count) cell(s)")
        let scenarios = report.trials.filter { $0.outcomes != nil }
        if !scenarios.isEmpty { out += "\n" + outcomeTables(scenarios) }
        if let c = report.gate?.comparison { out += "\n" + comparisonTable(c) }
        if let gate = report.gate, !gate.thresholds.isEmpty { out += "\n" + thresholdList(gate.thresholds, of: report) }
        let explored = report.trials.filter { $0.exploration != nil }
        if !explored.isEmpty { out += "\n" + explorationList(explored) }
        let (problems, skipped) = TableReport.problemsAndSkippedGroups(report.trials)
        // One trace drawn, as in the terminal: the first unexpected failure's.
        let drawn = TraceText.drawnIndex(problems).map { problems[$0].trial.id }
        let huntDrawn = TraceText.huntDrawnIndex(problems).map { problems[$0].trial.id }
        if problems.contains(where: { $0.expectation != .caught }) || !skipped.isEmpty {
            out += "\n### Trials that did not pass\n\n"
            for group in skipped {
                out += "- \(group.ids.count) trials **skipped**: \(escape(group.reason)) (" + TableReport.listed(group.ids.map { "`\($0)`" }, limit: 5) + ")\n"
            }
            for r in problems where r.expectation != .caught { out += problemItem(r, of: report, drawTrace: r.trial.id == drawn, drawHunt: r.trial.id == huntDrawn) }
        }
        let caught = problems.filter { $0.expectation == .caught }
        if !caught.isEmpty {
            out += "\n### Caught, as expected\n\n<details><summary>\(caught.count) trial(s) failed the way the plan expects (they count as passing)</summary>\n\n"
            for r in caught { out += problemItem(r, of: report, drawTrace: r.trial.id == drawn, drawHunt: r.trial.id == huntDrawn) }
            out += "\n</details>\n"
        }
        return out
    }

    /// One trial that did not simply pass: its outcome against the plan's
    /// `expect`, the first violation or failure, and its rerun command; for a
    /// controlled trial its schedule, shrinking, replay command and, when
    /// `drawTrace`, its interleaving in a fenced block; for a free-running
    /// failure control can run, its hunt (``huntText(_:of:drawTrace:)``,
    /// drawn when `drawHunt`).
    static func problemItem(_ r: TrialResult, of report: RunReport, drawTrace: Bool = false, drawHunt: Bool = false) -> String {
        let first = r.problemLine
        var out = "- `\(r.trial.id)`: **\(r.outcome.rawValue)**"
        switch r.expectation {
        case .caught: out += " (caught, as expected)"
        case .missed: out += ", but the plan expects **\(r.expectedText)**: the checks did not see the bug they are there to see"
        case .unexpected where r.trial.expect != nil: out += " (the plan expects \(r.expectedText))"
        default: break
        }
        out += (first.isEmpty || r.expectation == .missed ? "" : ": " + escape(first))
        if let cause = r.crashCause { out += "  \n  cause: `\(cause.replacingOccurrences(of: "`", with: "'"))`" }
        // A linearizability violation's smallest failing history, as a block
        // inside the list item (indented to stay in it).
        if let lines = r.linearizability?.failureLines, !lines.isEmpty {
            out += "\n\n  ```text\n" + lines.map { "  " + $0.replacingOccurrences(of: "```", with: "'''") + "\n" }.joined() + "  ```\n"
        }
        // Two trailing spaces: a hard line break, so the rerun line does not
        // run on into the message when GitHub renders the list item.
        out += "  \n  rerun: `\(r.rerunCommand ?? r.makeRerunCommand(planFile: report.planFile))`"
        out += huntText(r, of: report, drawTrace: drawHunt)
        // A controlled trial's decisions, and the command that replays its schedule exactly.
        if let s = r.scheduleSummary(planFile: report.planFile, rerun: report.rerun) {
            out += "  \n  " + escape(s.line)
            if let shrink = r.shrink { out += "  \n  " + escape(TraceText.shrinkLine(shrink)) }
            if let replay = s.replay { out += "  \n  replay: `\(replay)`" + (s.note.map { " (\(escape($0)))" } ?? "") }
        }
        if let race = r.violations.samples.first(where: { $0.kind == .dataRace }) {
            // The first data race's two stacks, as a code block inside the item.
            let stacks = (r.violations.samples.first == race ? [] : [race.summaryLine]) + race.stackLines
            out += "\n\n  ```\n" + stacks.map { "  " + $0.replacingOccurrences(of: "`", with: "'") }.joined(separator: "\n") + "\n  ```\n"
        }
        if drawTrace, let block = TraceText.block(r) {
            out += "\n\n" + fenced(block).split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
        } else if let summary = TraceText.summary(r) {
            out += "  \n  " + escape(summary)
        }
        return out + "\n"
    }

    /// Each explored trial's answer: how many schedules, how many failed,
    /// whether that was every one within the bound, what pruning saved.
    static func explorationList(_ trials: [TrialResult]) -> String {
        var out = "### Exploration\n\n"
        for r in trials {
            guard let e = r.exploration else { continue }
            out += "- `\(r.trial.id)`: " + escape(ExplorationText.line(e)) + "\n"
        }
        return out
    }

    /// `lines` in a fenced code block whose fence is longer than any run of
    /// backticks inside, so no text of the code under test can close it.
    static func fenced(_ lines: [String]) -> String {
        var longest = 0, run = 0
        for c in lines.joined(separator: "\n") {
            run = c == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: max(3, longest + 1))
        return ([fence + "text"] + lines + [fence]).joined(separator: "\n")
    }

    /// One row per cell: repetitions, outcomes, median throughput, service-time
    /// percentiles of the merged histogram, violations; and the allocator when
    /// the run used more than one.
    static func cellTable(_ cells: [Cell]) -> String {
        let allocators = Set(cells.flatMap { $0.trials.map(\.trial.allocator) })
        let showAllocator = allocators.count > 1
        var out = "Latencies are **service time** per operation (from its start to its end on the worker that ran it), "
        out += "percentiles of the repetitions' merged histograms.\n\n"
        out += "| cell |" + (showAllocator ? " allocator |" : "")
            + " reps | ops/s (median) | service p50 | service p99 | service p99.9 | service max | violations | outcomes |\n"
        out += "|---|" + (showAllocator ? "---|" : "") + "--:|--:|--:|--:|--:|--:|--:|---|\n"
        for cell in cells {
            let latency = { (m: GateMetric) in cell.value(m).map { m.format($0) } ?? "-" }
            var counts: [TrialOutcome: Int] = [:]
            for t in cell.trials { counts[t.outcome, default: 0] += 1 }
            let outcomes = TrialOutcome.allCases.compactMap { o in counts[o].map { "\($0) \(o.rawValue)" } }.joined(separator: ", ")
                + TableReport.expectationNote(cell.trials)
            var row = ["`\(cell.key)`", String(cell.trials.count),
                       cell.value(.opsPerSecond).map(Formatting.rate) ?? "-",
                       latency(.p50), latency(.p99), latency(.p999), latency(.max),
                       String(Int(cell.value(.violations) ?? 0)), outcomes]
            if showAllocator { row.insert(cell.trials.first?.trial.allocator.rawValue ?? "-", at: 1) }
            out += "| " + row.map(escape).joined(separator: " | ") + " |\n"
        }
        return out
    }

    /// Each scenario trial's outcome histogram: outcome, count, grade and meaning.
    static func outcomeTables(_ trials: [TrialResult]) -> String {
        var out = "### Scenario outcomes\n"
        for r in trials {
            guard let outcomes = r.outcomes, let rounds = r.rounds else { continue }
            // A linearizability check's rounds all have the empty outcome:
            // its verdict says more.
            if let linearizability = r.linearizability {
                out += "\n`\(r.trial.id)`: \(escape(linearizability.summary))\n"
                continue
            }
            let rate = r.measurement?.roundsPerSecond.map { ", \(Formatting.rate($0)) rounds/s" } ?? ""
            out += "\n`\(r.trial.id)`: \(Formatting.count(rounds)) rounds\(rate)\n\n| outcome | count | grade | meaning |\n|---|--:|---|---|\n"
            for o in outcomes {
                let grade = o.grade == "forbidden" ? "**forbidden**" : o.grade
                out += "| " + ["`\(o.outcome)`", String(o.count), grade, o.meaning ?? ""].map(escape).joined(separator: " | ") + " |\n"
            }
        }
        return out
    }

    static func comparisonTable(_ c: ComparisonReport) -> String {
        var out = "### Baseline comparison\n\n"
        out += "Metric \(ComparisonReport.method(c)).\n\n"
        if let note = c.environmentNote { out += "**Note:** \(escape(note)).\n\n" }
        let metric = c.settings.metric
        var table = "| cell | n | baseline (median) | new (median) | ratio [interval] | p | p adj | verdict | why |\n|---|--:|--:|--:|--:|--:|--:|---|---|\n"
        for cell in c.cells {
            let verdict = cell.verdict == .regressed ? "**regressed**" : cell.verdict.rawValue
            let base: String = Statistics.median(cell.baselineSamples).map { metric.format($0) } ?? "-"
            let new: String = Statistics.median(cell.newSamples).map { metric.format($0) } ?? "-"
            let p: String = cell.pValue.map(Formatting.pValue) ?? "-"
            let pAdjusted: String = cell.pValueAdjusted.map(Formatting.pValue) ?? "-"
            let row: [String] = ["`\(cell.cell)`", "\(cell.baselineSamples.count)/\(cell.newSamples.count)", base, new,
                                 Formatting.ratio(cell.ratio, cell.ratioLow, cell.ratioHigh), p, pAdjusted, verdict, cell.reason]
            table += "| " + row.map(escape).joined(separator: " | ") + " |\n"
        }
        let regressed = c.cells.filter { $0.verdict == .regressed }.count
        out += folded(table, rows: c.cells.count, summary: "\(c.cells.count) cell(s) compared, \(regressed) regressed")
        if !c.onlyInBaseline.isEmpty {
            out += "\nOnly in the baseline (not compared): " + c.onlyInBaseline.map { "`\($0)`" }.joined(separator: ", ") + "\n"
        }
        if let problem = c.coverageProblem {
            out += "\n**The baseline does not cover this run:** \(escape(problem)).\n"
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

    /// More rows than this fold a table into `<details>`: a step summary of a
    /// large run stays readable, its verdict and failures first.
    static let foldAfterRows = 20

    /// `table`, folded into `<details>` when it has more than ``foldAfterRows`` rows.
    static func folded(_ table: String, rows: Int, summary: String) -> String {
        guard rows > foldAfterRows else { return table }
        // Blank lines around the table: GitHub renders Markdown inside <details> only then.
        return "<details><summary>\(escape(summary)) (click to show the table)</summary>\n\n" + table + "\n</details>\n"
    }

    /// Keeps a cell's text from breaking the table or turning into markup.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "<", with: "&lt;")
    }
}
