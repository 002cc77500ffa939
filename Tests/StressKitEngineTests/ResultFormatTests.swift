import Foundation
import StressKit
import StressKitTestSupport
import XCTest

/// The JSON and CSV shapes promised in docs/outputs.md.
final class ResultFormatTests: XCTestCase {
    private func smallReport() throws -> RunReport {
        try TestSupport.runInProcess("""
            name: shapes
            experiments:
              - workload: bank
                parameters: { accounts: 4 }
                strategies: [mutex, unsynchronized]
                threads: 2
                duration: 100ms
                warmup: 10ms
            """)
    }

    func testJSONShapeAndRoundTrip() throws {
        let report = try smallReport()
        let data = try ResultCoding.encoder().encode(report)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(json["schema"] as? String, "stressbench.results/1")
        XCTAssertEqual(json["plan"] as? String, "shapes")
        XCTAssertNotNil(json["startedAt"] as? String)
        XCTAssertEqual(json["interrupted"] as? Bool, false)
        let env = try XCTUnwrap(json["environment"] as? [String: Any])
        for key in ["os", "cpu", "cores", "swiftVersion", "buildConfiguration", "toolVersion"] {
            XCTAssertNotNil(env[key], key)
        }
        let trials = try XCTUnwrap(json["trials"] as? [[String: Any]])
        XCTAssertEqual(trials.count, 2)
        let first = trials[0]
        let trial = try XCTUnwrap(first["trial"] as? [String: Any])
        XCTAssertEqual(trial["id"] as? String, "bank/mutex/t2/r0")
        XCTAssertEqual(trial["strategy"] as? String, "mutex")
        XCTAssertEqual(trial["threads"] as? Int, 2)
        XCTAssertEqual((trial["parameters"] as? [String: Any])?["accounts"] as? Int, 4)
        XCTAssertNotNil(trial["seed"] as? Int)
        XCTAssertEqual(first["outcome"] as? String, "passed")
        let m = try XCTUnwrap(first["measurement"] as? [String: Any])
        for key in ["elapsedNs", "totalOps", "opsPerSecond", "perThreadOps", "operations", "warmupOps", "latencyKind", "latency", "histogram"] {
            XCTAssertNotNil(m[key], key)
        }
        XCTAssertEqual(m["latencyKind"] as? String, "service-time")
        let latency = try XCTUnwrap(m["latency"] as? [String: Any])
        for key in ["count", "minNs", "meanNs", "p50Ns", "p90Ns", "p99Ns", "p999Ns", "p9999Ns", "maxNs"] {
            XCTAssertNotNil(latency[key], key)
        }
        let v = try XCTUnwrap(first["violations"] as? [String: Any])
        XCTAssertEqual(v["count"] as? Int, 0)

        let decoded = try ResultCoding.decoder().decode(RunReport.self, from: data)
        XCTAssertEqual(decoded, report, "the JSON file reads back as the same report")
    }

    /// The Swift face of a record's times is `Duration`; the JSON keeps the
    /// integer nanosecond fields (above), and each accessor reads its field.
    func testTheDurationAccessorsReadTheNanosecondFields() throws {
        let record = try smallReport().trials[0]
        let m = try XCTUnwrap(record.measurement)
        let latency = try XCTUnwrap(m.latency)
        XCTAssertEqual(latency.p50, .nanoseconds(latency.p50Nanoseconds))
        XCTAssertEqual(latency.p99, .nanoseconds(latency.p99Nanoseconds))
        XCTAssertEqual(latency.minimum, .nanoseconds(latency.minNanoseconds))
        XCTAssertEqual(latency.maximum, .nanoseconds(latency.maxNanoseconds))
        XCTAssertEqual(m.elapsed, .nanoseconds(m.elapsedNanoseconds))
        XCTAssertEqual(record.trial.timeout, .nanoseconds(record.trial.timeoutNanoseconds))
        XCTAssertEqual(record.trial.deadlockAfter, .nanoseconds(record.trial.deadlockAfterNanoseconds))
        XCTAssertEqual(record.trial.warmup, .nanoseconds(record.trial.warmupNanoseconds))
        var fuzz = FuzzSettings(.chaos)
        fuzz.spinMax = .microseconds(20)
        XCTAssertEqual(fuzz.spinMaxNanoseconds, 20_000, "a Duration set is the nanoseconds the fuzz points draw")
        XCTAssertEqual(fuzz.sleepMax, .milliseconds(2))
        let keys = try XCTUnwrap(JSONSerialization.jsonObject(with: ResultCoding.encoder().encode(fuzz)) as? [String: Any]).keys
        XCTAssertEqual(Set(keys).intersection(["spinMinNs", "spinMaxNs", "sleepMinNs", "sleepMaxNs", "starveMinNs", "starveMaxNs", "pctWaitCapNs", "staggerMaxNs"]).count, 8,
                       "the fuzz settings' JSON keys are the ones records have always had: \(keys.sorted())")
        let stall = try XCTUnwrap(JSONSerialization.jsonObject(with: ResultCoding.encoder().encode(
            StallReport(kind: .hang, stalledForNs: 5, beganAfterNs: 7, workers: [], cycle: nil, summary: "s"))) as? [String: Any])
        XCTAssertEqual(stall["stalledForNs"] as? Int, 5)
        XCTAssertEqual(stall["beganAfterNs"] as? Int, 7)
    }

    func testHistogramInRecordMatchesSummary() throws {
        let report = try smallReport()
        let m = try XCTUnwrap(report.trials[0].measurement)
        let rebuilt = LatencyHistogram(buckets: m.histogram)
        XCTAssertEqual(Int(rebuilt.count), m.latency?.count)
        XCTAssertEqual(rebuilt.summary()?.p99Nanoseconds, m.latency?.p99Nanoseconds)
        XCTAssertEqual(rebuilt.summary()?.maxNanoseconds, m.latency?.maxNanoseconds)
    }

    func testCSVShape() throws {
        let report = try smallReport()
        let csv = CSVReport.render(report)
        let lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines[0], CSVReport.columns.joined(separator: ","))
        XCTAssertEqual(lines.count, 1 + report.trials.count + 1, "header, one row per trial, final newline")
        XCTAssertEqual(lines.last, "")
        let header = lines[0].split(separator: ",").map(String.init)
        let row = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(row.count, header.count)
        let cell = Dictionary(uniqueKeysWithValues: zip(header, row))
        XCTAssertEqual(cell["trial_id"], "bank/mutex/t2/r0")
        XCTAssertEqual(cell["allocator"], "system")
        XCTAssertTrue(["tsc", "monotonic"].contains(cell["clock"] ?? ""), cell["clock"] ?? "")
        XCTAssertEqual(Int(cell["sample_every"] ?? ""), report.trials[0].measurement?.timing?.sampleEvery, "the interval used")
        XCTAssertEqual(cell["outcome"], "passed")
        XCTAssertNotNil(Int(cell["lat_p99_ns"] ?? ""), "integer nanoseconds")
        XCTAssertNotNil(Int(cell["ops_per_s"] ?? ""))
        XCTAssertEqual(cell["parameters"],
                       "accounts=4;audit_ratio=0.05;close_ratio=0.01;deposit_ratio=0.1;initial_balance=1000;max_transfer=100;variant=correct;withdraw_ratio=0.1")
    }

    /// The documented list of CSV columns (docs/outputs.md) is the header, name for name.
    func testTheDocumentationListsTheCSVColumnsExactly() throws {
        let page = try DocumentationPages.page(containing: "## CSV columns\n")
        let section = try XCTUnwrap(page.text.components(separatedBy: "## CSV columns\n").dropFirst().first)
        let list = try XCTUnwrap(section.split(separator: "`", omittingEmptySubsequences: false).dropFirst().first)
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(names, CSVReport.columns)
    }

    func testUnavailableFiguresAreEmptyNotZero() {
        let spec = TrialSpec(id: "x/y/t1/r0", index: 0, plan: "p", experiment: "x", workload: "counter",
                             parameters: WorkloadParameters(), strategy: "y", threads: 1, repetition: 0, seed: 1,
                             warmupNs: 0, durationNs: 1, opsPerThread: nil, timeoutNs: 1)
        let crashed = TrialResult.failed(spec, .crashed, FailureReport(message: "died, with a comma", signal: "SIGILL"))
        let report = RunReport(plan: "p", planFile: "p.yaml", startedAt: Date(), finishedAt: Date(), trials: [crashed])
        let row = CSVReport.render(report).split(separator: "\n")[1]
        XCTAssertTrue(row.hasPrefix("x/y/t1/r0,p,x,counter,,y,1,0,1,off,crashed,0,,,,,,,,,,,,,,,"), String(row))
        // `expectation`: a crash the plan does not expect; then the appended
        // `worker_cpu_ns_per_op`, empty, and the schedule: the trial's mode,
        // free, with no decisions; then the four exploration columns, empty.
        XCTAssertEqual(CSVReport.columns.dropLast(4).suffix(4), ["expectation", "worker_cpu_ns_per_op", "schedule", "schedule_decisions"])
        XCTAssertTrue(row.hasSuffix(",\"died, with a comma\",system,," + String(repeating: ",", count: CSVReport.columns.count - 38) + ",unexpected,,free,,,,,"),
                      "nothing was timed: no clock, no interval, and none of the figures after them: \(row)")
        XCTAssertEqual(CSVReport.columns[29], "sample_every", "the first 30 columns never move")
        XCTAssertEqual(report.exitCode, .trialFailures)
        XCTAssertTrue(TableReport.render(report).contains("crashed (SIGILL)"))
    }

    func testExitCodePrecedence() {
        XCTAssertEqual(RunExitCode.forOutcomes([.passed, .passed]), .passed)
        XCTAssertEqual(RunExitCode.forOutcomes([.passed, .violated]), .violations)
        XCTAssertEqual(RunExitCode.forOutcomes([.violated, .timeout, .passed]), .trialFailures)
        XCTAssertEqual(RunExitCode.forOutcomes([.crashed, .violated]), .trialFailures)
        XCTAssertEqual(RunExitCode.forOutcomes([.error]), .trialFailures)
    }

    func testAtomicWriteReplacesWholeFile() throws {
        let dir = try TestSupport.temporaryDirectory()
        let path = dir.appendingPathComponent("out.json").path
        try AtomicFile.write("old contents that are longer", to: path)
        try AtomicFile.write("new", to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "new")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        XCTAssertEqual(leftovers, ["out.json"], "no temporary file left behind")
        XCTAssertThrowsError(try AtomicFile.write("x", to: "/nonexistent-dir/out.json"))
    }
}
