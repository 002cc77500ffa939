import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The shapes of the CI outputs: the JSON Schema covers every key the encoder
/// writes, JUnit XML, the Markdown summary, and .hgrm files.
final class OutputFormatTests: XCTestCase {
    /// A report with every optional part filled in: a gate with both kinds of
    /// threshold and a comparison, a violated trial, a deadlocked one with its
    /// stall report, and a crashed one with no measurement.
    static func fullReport() throws -> RunReport {
        // Six repetitions, one of which crashes: five samples remain for the comparison.
        var trials = Synthetic.cell(throughputs: [1000, 1010, 990, 1005, 995, 1002], latencyNs: [1_000, 1_000, 1_000, 1_000, 1_000, 1_000])
        trials[1].outcome = .violated
        trials[1].violations = ViolationReport(count: 2, samples: [
            ViolationSample(thread: 1, operation: "increment", step: "store", opNumber: 17, message: "final count <1> & \"2\""),
            ViolationSample(thread: nil, operation: "final-check", step: nil, opNumber: nil, message: "lost | one"),
        ])
        trials[1].rerunCommand = "stressbench run synthetic.yaml --only e/mutex/t2/r1 --seed 2"
        // A controlled trial, replayed from a recorded schedule, whose control was partial.
        trials[1].trial.schedule = .controlled
        trials[1].trial.maxDecisions = 500
        trials[1].trial.forcedSchedule = "w0:2"
        trials[1].schedule = ScheduleRecord(mode: .controlled, decisions: 5, encoded: "w0:2,w1:3", controlled: .partial,
                                            escapes: ["worker 1 blocked for 12 ms outside any scheduling point"])
        trials[0].schedule = .free
        // A linearizability check that found a violation and shrank it.
        trials[1].trial.check = .linearizable
        trials[1].linearizability = LinearizabilityRecord(
            verdict: .violated, scenarios: 3, histories: 300, undecided: 1,
            history: [
                .init(worker: 0, operation: "put(a, 1)", result: "nil", call: 1, return: 3, unexplained: nil),
                .init(worker: 1, operation: "get(a)", result: nil, call: 2, return: nil, unexplained: nil),
                .init(worker: -1, operation: "get(a)", result: "nil", call: 5, return: 6, unexplained: true),
            ],
            closest: [0], closestState: "[a: 1]", shrink: .init(from: 20, to: 3, complete: true))
        trials[2].outcome = .deadlock
        trials[2].failure = FailureReport(message: "deadlock", signal: "SIGTERM", exitStatus: 0, outputTail: ["tail \u{1B}[0m"])
        trials[2].stall = StallReport(kind: .deadlock, stalledForNs: 5, workers: [
            StalledWorker(thread: 0, operation: "op", step: "s", phase: "acquiring", description: "waits",
                          resource: 0, innerResource: 1, completedOps: 3),
        ], cycle: ["worker 0 waits for worker 1"], summary: "cycle")
        trials[2].stall?.schedule = ScheduleRecord(mode: .controlled, decisions: 3, encoded: "w0:3", controlled: .full)
        trials[3].outcome = .crashed
        trials[3].measurement = nil
        // Measured under a CPU quota that stopped it in 2 of 5 periods.
        trials[0].environment.cpuQuota = .cores(1.5)
        trials[0].measurement?.resources = ResourceUsage(
            from: .init(usage: rusage(), throttling: ThrottleCounters(periods: 0, throttledPeriods: 0, throttledNs: 0)),
            to: .init(usage: rusage(), throttling: ThrottleCounters(periods: 5, throttledPeriods: 2, throttledNs: 9_000_000)),
            operations: 100)
        trials[3].failure = FailureReport(message: "the trial process died of SIGILL", signal: "SIGILL")
        var report = Synthetic.report(trials)
        var base = Synthetic.report(Synthetic.cell(throughputs: [1200, 1210, 1190, 1205, 1195], latencyNs: [800, 800, 800, 800, 800])
            + Synthetic.cell(throughputs: [1], latencyNs: [1], strategy: "nslock"))
        // Measured on another machine: the comparison records what differs.
        base.environment.cpu = "another CPU"
        // The baseline's nslock cell is missing from the run: allowed, so the
        // comparison still judges the rest.
        let policy = GatePolicy(planThresholds: [try ThresholdParser.parse("p99 < 2us"), try ThresholdParser.parse("ops_per_s >= 0.95 * baseline")],
                                comparison: ComparisonSettings(allowPartial: true))
        report.gate = GateReport.evaluate(report.trials, policy: policy, baseline: base, baselineFile: "base.json")
        return report
    }

    // MARK: - CSV

    /// The columns after `sample_every` carry the JSON's figures: every one
    /// filled in a trial that has them all, each from its own field.
    func testCSVCarriesTheDetailedFigures() throws {
        var trial = Synthetic.trial(repetition: 0, opsPerSecond: 1000, latencyNs: 100)
        var m = try XCTUnwrap(trial.measurement)
        var acquire = LatencyHistogram(), response = LatencyHistogram()
        for v in [10, 20, 30, 4000] as [UInt64] { acquire.record(v) }
        for v in [500, 600, 700, 90_000] as [UInt64] { response.record(v) }
        m.acquireLatency = acquire.summary()
        m.responseLatency = response.summary()
        m.pacing = PacingReport(targetOpsPerSecond: 5000.4, achievedOpsPerSecond: 4999.6, maxLagNs: 1234, keptUp: true)
        m.longestGapNanoseconds = [700, 9_000, 800]
        m.fairness = Fairness(perThreadOps: [100, 100, 5])
        m.resources = ResourceUsage(
            from: .init(usage: rusage(), throttling: ThrottleCounters(periods: 0, throttledPeriods: 0, throttledNs: 0)),
            to: .init(usage: rusage(), throttling: ThrottleCounters(periods: 5, throttledPeriods: 2, throttledNs: 9_000_000)),
            operations: 100)
        m.allocator = AllocatorMetrics(name: "jemalloc", bytesPerOp: 0, allocationsPerOp: 1.0 / 3, residentBytes: 4096)
        trial.measurement = m
        let lines = CSVReport.render(Synthetic.report([trial])).split(separator: "\n").map(String.init)
        let cell = Dictionary(uniqueKeysWithValues: zip(CSVReport.columns, lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        let fairness = try XCTUnwrap(m.fairness)
        let expected: [String: String] = [
            "acq_p50_ns": "\(m.acquireLatency!.p50Nanoseconds)", "acq_p99_ns": "\(m.acquireLatency!.p99Nanoseconds)",
            "acq_p999_ns": "\(m.acquireLatency!.p999Nanoseconds)", "acq_max_ns": "\(m.acquireLatency!.maxNanoseconds)",
            "resp_p50_ns": "\(m.responseLatency!.p50Nanoseconds)", "resp_p99_ns": "\(m.responseLatency!.p99Nanoseconds)",
            "resp_p999_ns": "\(m.responseLatency!.p999Nanoseconds)", "resp_max_ns": "\(m.responseLatency!.maxNanoseconds)",
            "pacing_target_ops_per_s": "5000", "pacing_achieved_ops_per_s": "5000", "pacing_max_lag_ns": "1234",
            "pacing_kept_up": "true", "max_stall_ns": "9000",
            "fairness_cv": String(format: "%.6g", fairness.coefficientOfVariation),
            "fairness_jain": String(format: "%.6g", fairness.jainIndex), "starved_thread": "2",
            "cpu_user_ns": "0", "cpu_system_ns": "0", "cpu_ns_per_op": "0", "worker_cpu_ns_per_op": "", "ctx_voluntary": "0", "ctx_involuntary": "0",
            "ctx_per_1k_ops": "0", "peak_rss_bytes": "0",
            "quota_periods": "5", "throttled_periods": "2", "throttled_ns": "9000000",
            "alloc_bytes_per_op": "0", "alloc_requests_per_op": "0.333333", "alloc_resident_bytes": "4096",
            // A workload's trial: the scenario columns are empty (ScenarioTests checks them filled).
            "rounds": "", "rounds_per_s": "", "forbidden": "", "interesting": "",
            // Must pass, and passed (ExpectationTests checks the others).
            "expected": "", "expectation": "passed",
            // A record with no schedule says the trial's own mode, free, and no decisions.
            "schedule": "free", "schedule_decisions": "",
            // Not explored: the exploration's four are empty (TraceReportTests checks them filled).
            "exploration_schedules": "", "exploration_failed": "", "exploration_complete": "", "exploration_bound": "",
        ]
        XCTAssertEqual(Set(expected.keys), Set(CSVReport.columns.dropFirst(30)), "every new column is checked")
        for (column, value) in expected { XCTAssertEqual(cell[column], value, column) }
        XCTAssertEqual(cell["acq_max_ns"], try String(XCTUnwrap(acquire.summary()).maxNanoseconds))
        XCTAssertNotEqual(cell["acq_p50_ns"], cell["resp_p50_ns"], "each from its own histogram")
        XCTAssertEqual(CSVReport.number(123_456.7), "123457", "no exponent for large figures")
    }

    // MARK: - JSON Schema

    private static var schemaURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas/results.schema.json")
    }

    func testSchemaDocumentsEveryKeyTheEncoderWrites() throws {
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemaURL)) as? [String: Any])
        XCTAssertEqual((schema["properties"] as? [String: Any]).flatMap { $0["schema"] as? [String: Any] }?["const"] as? String,
                       RunReport.currentSchema, "the schema file describes the version the encoder writes")
        let real = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 2
                ops: 2000
                warmup: 0s
                fuzz: chaos
            """)
        for report in [try Self.fullReport(), real] {
            let json = try JSONSerialization.jsonObject(with: ResultCoding.encoder().encode(report))
            var undocumented: [String] = []
            SchemaWalker(root: schema).check(json, against: schema, at: "", missing: &undocumented)
            XCTAssertEqual(undocumented, [], "keys missing from Schemas/results.schema.json")
        }
    }

    /// The one-line check that would catch a schema that documents nothing:
    /// the walker does report an unknown key.
    func testSchemaWalkerReportsUnknownKeys() throws {
        let schema = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemaURL)) as? [String: Any])
        var missing: [String] = []
        SchemaWalker(root: schema).check(["schema": "x", "surprise": 1, "trials": [["outcome": "passed", "extra": true]]],
                                         against: schema, at: "", missing: &missing)
        XCTAssertEqual(missing.sorted(), ["/surprise", "/trials/0/extra"])
    }

    // MARK: - JUnit

    func testJUnitHasOneCasePerTrialAndGateFailuresWithRerunCommands() throws {
        let report = try Self.fullReport()
        let xml = JUnitReport.render(report)
        XCTAssertTrue(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"stressbench\""), xml)
        let document = try XMLDocument(xmlString: xml)
        let cases = try document.nodes(forXPath: "/testsuites/testsuite[1]/testcase")
        XCTAssertEqual(cases.count, report.trials.count)
        let failures = try document.nodes(forXPath: "/testsuites/testsuite[1]/testcase/failure") as? [XMLElement] ?? []
        XCTAssertEqual(failures.compactMap { $0.attribute(forName: "type")?.stringValue }, ["violated", "deadlock", "crashed"])
        XCTAssertTrue(failures[0].stringValue?.contains("rerun: stressbench run synthetic.yaml --only e/mutex/t2/r1 --seed 2") == true)
        XCTAssertTrue(failures[0].attribute(forName: "message")?.stringValue?.contains("final count <1> & \"2\"") == true,
                      "special characters survive escaping")
        let gate = try document.nodes(forXPath: "/testsuites/testsuite[2]/testcase/failure") as? [XMLElement] ?? []
        let types = gate.compactMap { $0.attribute(forName: "type")?.stringValue }
        XCTAssertTrue(types.contains("regression"), types.description)
        XCTAssertTrue(types.contains("threshold"), types.description)
        XCTAssertTrue(gate.allSatisfy { $0.stringValue?.contains("rerun: stressbench run synthetic.yaml --only e/mutex/t2") == true })
        let root = try XCTUnwrap(document.rootElement())
        let expectedFailures = 3 + report.gate!.failedThresholds.count + report.gate!.regressions.count
        XCTAssertEqual(root.attribute(forName: "failures")?.stringValue, String(expectedFailures))
    }

    /// Trials differing only in their allocator (or fuzz profile, which the
    /// repetition decides) get distinct test-case names.
    func testJUnitCaseNamesAreUniquePerClass() throws {
        var trials = Synthetic.cell(throughputs: [1, 1], latencyNs: [1, 1])
        for r in Synthetic.cell(throughputs: [1, 1], latencyNs: [1, 1]) {
            var jemalloc = r
            jemalloc.trial.allocator = .jemalloc
            jemalloc.trial.id = "e/mutex/jemalloc/t2/r\(r.trial.repetition)"
            trials.append(jemalloc)
        }
        let document = try XMLDocument(xmlString: JUnitReport.render(Synthetic.report(trials)))
        let names = try document.nodes(forXPath: "/testsuites/testsuite[1]/testcase/@name").compactMap(\.stringValue)
        XCTAssertEqual(names, ["mutex/t2/r0", "mutex/t2/r1", "mutex/jemalloc/t2/r0", "mutex/jemalloc/t2/r1"])
    }

    // MARK: - Markdown

    func testMarkdownSummaryShowsVerdictCellsComparisonAndFailures() throws {
        let report = try Self.fullReport()
        let md = MarkdownReport.render(report)
        XCTAssertTrue(md.hasPrefix("## ❌ stressbench `synthetic`: crash, deadlock, hang or timeout (exit code 3)\n"), md)
        XCTAssertTrue(md.contains("| cell | reps | ops/s (median) | service p50 | service p99 | service p99.9 | service max | violations | outcomes |"), md)
        XCTAssertTrue(md.contains("Latencies are **service time** per operation"), md)
        XCTAssertFalse(md.contains("| allocator |"), "one allocator: no column")
        XCTAssertTrue(md.contains("| `e/mutex/t2` | 6 | "), md)
        XCTAssertTrue(md.contains("### Baseline comparison"), md)
        XCTAssertTrue(md.contains("| **regressed** |"), md)
        XCTAssertTrue(md.contains("Only in the baseline (not compared): `e/nslock/t2`"), md)
        XCTAssertTrue(md.contains("- `e/mutex/t2/r1`: **violated**"), md)
        XCTAssertTrue(md.contains("rerun: `stressbench run synthetic.yaml --only e/mutex/t2/r1 --seed 2`"), md)
        // Every table row has as many cells as its header: a '|' in a message is escaped.
        let tables = md.components(separatedBy: "\n\n").filter { $0.hasPrefix("| cell") }
        XCTAssertEqual(tables.count, 2, "the cells and the comparison: \(md)")
        for table in tables {
            let rows = table.split(separator: "\n").map { $0.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count }
            XCTAssertEqual(Set(rows).count, 1, table)
        }
    }

    /// A run under two allocators names the allocator in the Markdown cell
    /// table and in the terminal table.
    func testTablesNameTheAllocatorWhenARunHasTwo() {
        var trials = Synthetic.cell(throughputs: [1000], latencyNs: [1_000])
        var jemalloc = trials[0]
        jemalloc.trial.allocator = .jemalloc
        jemalloc.trial.id = "e/mutex/jemalloc/t2/r0"
        trials.append(jemalloc)
        let report = Synthetic.report(trials)
        let md = MarkdownReport.render(report)
        XCTAssertTrue(md.contains("| cell | allocator | reps |"), md)
        XCTAssertTrue(md.contains("| `e/mutex/t2` | system | 1 |"), md)
        XCTAssertTrue(md.contains("| `e/mutex/t2 allocator=jemalloc` | jemalloc | 1 |"), md)
        let table = TableReport.render(report)
        XCTAssertTrue(table.contains("workload  strategy  allocator  threads"), table)
        XCTAssertTrue(table.contains("counter   mutex     jemalloc         2"), table)
        XCTAssertFalse(TableReport.render(Synthetic.report([trials[0]])).contains("allocator"))
    }

    func testMarkdownOfAPassingRunSaysPassed() {
        let md = MarkdownReport.render(Synthetic.report(Synthetic.cell(throughputs: [1], latencyNs: [1])))
        XCTAssertTrue(md.hasPrefix("## ✅ stressbench `synthetic`: passed (exit code 0)"), md)
        XCTAssertFalse(md.contains("did not pass"))
    }

    // MARK: - hgrm

    func testHgrmFilesOnePerMeasuredTrialInMicroseconds() throws {
        let dir = try TestSupport.temporaryDirectory().appendingPathComponent("hgrm").path
        let report = try Self.fullReport()
        let files = try HistogramFiles.write(report, to: dir)
        XCTAssertEqual(files.count, report.trials.filter { $0.measurement != nil }.count)
        XCTAssertEqual(files.map { URL(fileURLWithPath: $0).lastPathComponent }.first, "e_mutex_t2_r0.hgrm")
        let text = try String(contentsOfFile: files[0], encoding: .utf8)
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.first?.split(separator: " ").map(String.init), ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"])
        // Every sample is 1000 ns = 1 µs: the value column reads 1.000.
        let firstRow = lines.dropFirst().first { !$0.isEmpty }?.split(separator: " ")
        XCTAssertEqual(firstRow?.first, "1.000")
        XCTAssertTrue(text.contains("#[Max     =        1.000, Total count    =          100]"), text)
    }
}
