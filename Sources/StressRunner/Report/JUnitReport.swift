import Foundation
import StressCore

/// JUnit XML for CI systems: one test case per trial (a violation, crash,
/// deadlock, hang, timeout or error is a failure whose text ends with the
/// rerun command, unless the plan `expect`s it: then the case passes and its
/// output says "caught, as expected"; a trial the plan expects to fail that
/// passed is a failure; `skipped` is skipped), and, when the run was gated, one test
/// case per threshold check and per baseline comparison of a cell (a failed
/// threshold or a regression is a failure).
package enum JUnitReport {
    /// The whole document.
    public static func render(_ report: RunReport) -> String {
        var suites: [String] = [trialSuite(report)]
        if let gate = report.gate, !gate.thresholds.isEmpty || gate.comparison != nil {
            suites.append(gateSuite(gate, report: report))
        }
        let all = suites.joined(separator: "\n")
        // No `skipped` here: the Jenkins junit-10 schema most tools validate
        // against allows it on <testsuite> only.
        let (tests, failures, errors) = counts(report)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="stressbench" tests="\(tests)" failures="\(failures)" errors="\(errors)" time="\(seconds(totalSeconds(report)))">
            \(all)
            </testsuites>

            """
    }

    private static func counts(_ report: RunReport) -> (Int, Int, Int) {
        var tests = report.trials.count + (stoppedBySignal(report) ? 1 : 0)
        var failures = report.trials.filter { $0.expectation.isFailure }.count
        if let gate = report.gate {
            let (gateTests, gateFailures) = gateCounts(gate)
            tests += gateTests
            failures += gateFailures
        }
        return (tests, failures, stoppedBySignal(report) ? 1 : 0)
    }

    /// A trial's time: what the harness saw it take (``TrialResult/wallTime``),
    /// so a crashed or deadlocked case shows its real time, not 0; the
    /// measured window for records from before that was kept.
    static func caseSeconds(_ r: TrialResult) -> Double {
        Double(r.wallNanoseconds ?? r.measurement?.elapsedNanoseconds ?? 0) / 1e9
    }

    private static func totalSeconds(_ report: RunReport) -> Double {
        report.trials.map(caseSeconds).reduce(0, +)
    }

    /// The failure's one-line message: the outcome, then the first violation
    /// or the failure's own message (without repeating the outcome that
    /// message may start with), then, for a crash, the cause the trial's
    /// output names (`Fatal error: ...`).
    static func failureMessage(_ r: TrialResult) -> String {
        let outcome = r.outcome.rawValue
        let first = r.problemLine
        var message = first.isEmpty ? outcome : "\(outcome): \(first)"
        if let cause = r.crashCause, !message.contains(cause) { message += " (\(cause))" }
        return message
    }

    /// A run a signal stopped gets one more test case, an error, so that CI
    /// does not read the trials that finished (and the skipped rest) as a pass.
    private static func stoppedBySignal(_ report: RunReport) -> Bool { report.stop?.reason == .signal }

    private static func stopCase(_ report: RunReport) -> String {
        let stop = report.stop!
        let notRun = report.trials.filter { $0.outcome == .skipped }.count
        let message = "\(stop.summary): exit code \(report.exitCode.rawValue); \(notRun) trial(s) skipped"
        return "    <testcase classname=\"\(xml("stressbench.\(report.plan)"))\" name=\"run\">\n      <error type=\"interrupted\" message=\"\(xml(message))\"/>\n    </testcase>"
    }

    /// Test cases and failures of the gate suite: one per threshold check, one
    /// for the baseline's coverage and one per compared cell.
    private static func gateCounts(_ gate: GateReport) -> (Int, Int) {
        let comparison = gate.comparison.map { 1 + $0.cells.count } ?? 0
        let coverage = gate.coverageProblem == nil ? 0 : 1
        return (gate.thresholds.count + comparison, gate.failedThresholds.count + gate.regressions.count + coverage)
    }

    private static func trialSuite(_ report: RunReport) -> String {
        let failures = report.trials.filter { $0.expectation.isFailure }.count
        let skipped = report.trials.filter { $0.outcome == .skipped }.count
        let time = totalSeconds(report)
        let stopped = stoppedBySignal(report)
        var lines = ["  <testsuite name=\"\(xml(report.plan))\" tests=\"\(report.trials.count + (stopped ? 1 : 0))\" failures=\"\(failures)\" errors=\"\(stopped ? 1 : 0)\" skipped=\"\(skipped)\" time=\"\(seconds(time))\" timestamp=\"\(xml(report.startedAt))\">"]
        if stopped { lines.append(stopCase(report)) }
        for r in report.trials {
            let t = r.trial
            let name = caseName(t)
            let open = "    <testcase classname=\"\(xml("stressbench.\(report.plan).\(t.experiment)"))\" name=\"\(xml(name))\" time=\"\(seconds(caseSeconds(r)))\""
            // A scenario's outcome histogram goes to the case's output.
            let outcomes = TableReport.outcomeBlock(r).map { "\n      <system-out>\(xml($0))</system-out>" } ?? ""
            if r.outcome == .skipped {
                lines.append(open + ">\n      <skipped message=\"\(xml(r.failure?.message ?? "not run"))\"/>\n    </testcase>")
            } else if r.expectation == .missed {
                // The plan expects a failure and none came: the checks have gone blind.
                let message = TableReport.verdict(r)
                lines.append(open + ">\n      <failure type=\"expected-\(xml(r.expectedText.replacingOccurrences(of: " or ", with: "-or-")))\" message=\"\(xml(message))\">\(xml(TableReport.details(r, planFile: report.planFile, rerun: report.rerun)))</failure>\(outcomes)\n    </testcase>")
            } else if r.expectation == .unexpected {
                let details = TableReport.details(r, planFile: report.planFile, rerun: report.rerun)
                lines.append(open + ">\n      <failure type=\"\(r.outcome.rawValue)\" message=\"\(xml(failureMessage(r)))\">\(xml(details))</failure>\(outcomes)\n    </testcase>")
            } else if r.expectation == .caught {
                // Failed the way the plan expects: a passing case that says so.
                let details = TableReport.details(r, planFile: report.planFile, rerun: report.rerun)
                lines.append(open + ">\n      <system-out>\(xml(details))</system-out>\(outcomes)\n    </testcase>")
            } else if !outcomes.isEmpty {
                lines.append(open + ">" + outcomes + "\n    </testcase>")
            } else {
                lines.append(open + "/>")
            }
        }
        lines.append("  </testsuite>")
        return lines.joined(separator: "\n")
    }

    private static func gateSuite(_ gate: GateReport, report: RunReport) -> String {
        let (count, failures) = gateCounts(gate)
        var lines = ["  <testsuite name=\"\(xml(report.plan)).gate\" tests=\"\(count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">"]
        let classname = xml("stressbench.\(report.plan).gate")
        for c in gate.thresholds {
            let open = "    <testcase classname=\"\(classname)\" name=\"\(xml("\(c.cell): \(c.threshold.expression)"))\""
            if c.status == .failed {
                let body = c.message + "\nrerun: " + GateSummary.rerunCommand(c.cell, of: report)
                lines.append(open + ">\n      <failure type=\"threshold\" message=\"\(xml(c.message))\">\(xml(body))</failure>\n    </testcase>")
            } else {
                lines.append(open + ">\n      <system-out>\(xml(c.message))</system-out>\n    </testcase>")
            }
        }
        if let comparison = gate.comparison {
            let open = "    <testcase classname=\"\(classname)\" name=\"baseline covers the run\""
            if let problem = comparison.coverageProblem {
                lines.append(open + ">\n      <failure type=\"coverage\" message=\"\(xml(problem))\">\(xml(problem))</failure>\n    </testcase>")
            } else {
                lines.append(open + "/>")
            }
            for cell in comparison.cells {
                let summary = "\(cell.verdict.rawValue): \(comparison.settings.metric.rawValue) ratio \(Formatting.ratio(cell.ratio, cell.ratioLow, cell.ratioHigh)); \(cell.reason)"
                let open = "    <testcase classname=\"\(classname)\" name=\"\(xml("\(cell.cell): \(comparison.settings.metric.rawValue) vs baseline"))\""
                if cell.verdict == .regressed {
                    let body = summary + "\nrerun: " + GateSummary.rerunCommand(cell.cell, of: report)
                    lines.append(open + ">\n      <failure type=\"regression\" message=\"\(xml(summary))\">\(xml(body))</failure>\n    </testcase>")
                } else {
                    lines.append(open + ">\n      <system-out>\(xml(summary))</system-out>\n    </testcase>")
                }
            }
        }
        lines.append("  </testsuite>")
        return lines.joined(separator: "\n")
    }

    /// A trial's test-case name: its id without the experiment, which is the
    /// class name (`mutex/jemalloc/t4/r0`). Ids are unique in a plan, so the
    /// names are unique in a class, allocator and repetition included.
    static func caseName(_ t: TrialSpec) -> String {
        t.id.hasPrefix(t.experiment + "/") ? String(t.id.dropFirst(t.experiment.count + 1)) : t.id
    }

    private static func seconds(_ s: Double) -> String { String(format: "%.3f", s) }

    /// Escapes text for XML attributes and content, dropping the control
    /// characters XML 1.0 cannot carry (a crashed trial's output may hold them).
    static func xml(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case "\r": out += "&#13;"
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
