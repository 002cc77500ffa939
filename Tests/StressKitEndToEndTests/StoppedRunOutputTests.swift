import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// What a stopped run writes, at a cost that does not grow with each trial
/// it never started: its skipped records are spliced from one encoding of
/// their kind, not encoded one by one, and every file must still be byte for
/// byte what the ordinary encoder writes, whatever the records hold; the
/// table leaves them out.
final class StoppedRunOutputTests: XCTestCase {
    /// A stopped run's records: a few finished trials, then the skipped rest
    /// of four cells (one under the portfolio, whose fuzzing profile turns
    /// with the repetition, one under a controlled schedule), with ids the encoders must escape, one without
    /// a rerun command, and one skipped for another reason.
    private func stoppedRun() throws -> RunReport {
        let plan = try TestSupport.plan("""
            experiments:
              - workload: counter
                strategies: [mutex, spinlock]
                threads: [1, 2]
                ops: 100
                repetitions: 30
              - name: turning
                workload: counter
                strategies: [mutex]
                threads: 1
                ops: 100
                repetitions: 40
                fuzz: portfolio
              - name: controlled
                workload: counter
                strategies: [mutex]
                threads: 2
                ops: 100
                repetitions: 20
                schedule: controlled
                max_decisions: 300
            """)
        let runner = PlanRunner(registry: TestSupport.registry, options: RunOptions(isolation: .inProcess))
        let specs = runner.selectedTrials(of: plan)
        XCTAssertEqual(specs.count, 180)
        let stop = RunStop(reason: .signal, signal: "SIGINT")
        let failure = FailureReport(message: "not run: the run was \(stop.summary)")
        var trials: [TrialResult] = specs.prefix(3).enumerated().map { n, spec in
            var finished = Synthetic.trial(repetition: n, opsPerSecond: 1000 + Double(n), latencyNs: 500)
            finished.trial = spec
            finished.schedule = .free
            return finished
        }
        for spec in specs.dropFirst(3) {
            var skipped = TrialResult.failed(spec, .skipped, failure)
            skipped.rerunCommand = runner.rerunCommand(for: spec, planFile: "plans/big run.yaml")
            trials.append(skipped)
        }
        trials[10].trial.id = "counter/mutex/t1/\"quoted\",r7"   // escaped in JSON, quoted in CSV
        trials[11].trial.id = "counter/mutex/t1/résumé"           // not plain ASCII
        trials[12].trial.id = "counter/mutex/t1/back\\slash\nline"
        trials[13].rerunCommand = nil
        trials[14].failure = FailureReport(message: "jemalloc is missing", missing: "jemalloc")
        return RunReport(plan: "big", planFile: "plans/big run.yaml", startedAt: Date(timeIntervalSince1970: 0),
                         finishedAt: Date(timeIntervalSince1970: 1), stop: stop, trials: trials)
    }

    func testTheResultsFileIsWhatTheEncoderWrites() throws {
        let report = try stoppedRun()
        let spliced = try ResultCoding.encodeResults(report)
        let ordinary = try ResultCoding.encoder().encode(report)
        XCTAssertEqual(spliced, ordinary, firstDifference(spliced, ordinary))
    }

    func testTheStreamsLinesAreWhatTheEncoderWrites() throws {
        let report = try stoppedRun()
        let encoder = ResultCoding.encoder(pretty: false)
        let ordinary = try report.trials.reduce(into: Data()) { lines, record in
            lines.append(try encoder.encode(record))
            lines.append(UInt8(ascii: "\n"))
        }
        let (spliced, failures) = RecordStream.encodeLines(report.trials)
        XCTAssertEqual(failures, [])
        XCTAssertEqual(spliced, ordinary, firstDifference(spliced, ordinary))
    }

    func testTheCSVIsWhatEachRowRendersTo() throws {
        let report = try stoppedRun()
        let ordinary = ([CSVReport.columns.joined(separator: ",")] + report.trials.map(CSVReport.row)).joined(separator: "\n") + "\n"
        let spliced = CSVReport.render(report)
        XCTAssertEqual(spliced, ordinary, firstDifference(Data(spliced.utf8), Data(ordinary.utf8)))
        XCTAssertTrue(spliced.contains("\"counter/mutex/t1/\"\"quoted\"\",r7\""), "the escaped id is the renderer's")
    }

    /// Each file is written through a chunk of fixed size, reused: the
    /// bytes are the same wherever its boundaries fall. Records (about 2 kB
    /// of JSON, 1.3 kB of NDJSON, 0.3 kB of CSV) straddle chunks of 1, 97
    /// and 1000 bytes; a chunk the size of the file is exactly one, and one
    /// of 1 MB is more than the file.
    func testEveryFileIsTheSameWhereverTheChunksEnd() throws {
        let report = try stoppedRun()
        let json = try Array(ResultCoding.encoder().encode(report))
        let encoder = ResultCoding.encoder(pretty: false)
        let lines = try report.trials.flatMap { try Array(encoder.encode($0)) + [UInt8(ascii: "\n")] }
        let csv = Array((([CSVReport.columns.joined(separator: ",")] + report.trials.map(CSVReport.row)).joined(separator: "\n") + "\n").utf8)
        for chunk in [1, 97, 1000, 4096, 1 << 20] {
            let written = try ChunkedOutput.collecting(chunk: chunk) { try ResultCoding.writeResults(report, to: $0) }
            XCTAssertEqual(written, json, "results file, chunks of \(chunk): " + firstDifference(Data(written), Data(json)))
            let streamed = ChunkedOutput.collecting(chunk: chunk) { XCTAssertEqual(RecordStream.writeLines(report.trials, to: $0), []) }
            XCTAssertEqual(streamed, lines, "stream, chunks of \(chunk): " + firstDifference(Data(streamed), Data(lines)))
            let rows = ChunkedOutput.collecting(chunk: chunk) { CSVReport.write(report, to: $0) }
            XCTAssertEqual(rows, csv, "CSV, chunks of \(chunk): " + firstDifference(Data(rows), Data(csv)))
        }
        for (name, whole, fill) in [("results file", json, { (out: ChunkedOutput) in try ResultCoding.writeResults(report, to: out) }),
                                    ("stream", lines, { (out: ChunkedOutput) in _ = RecordStream.writeLines(report.trials, to: out) }),
                                    ("CSV", csv, { (out: ChunkedOutput) in CSVReport.write(report, to: out) })] {
            var chunks: [Int] = []
            var joined: [UInt8] = []
            let output = ChunkedOutput(chunk: whole.count) { (bytes: UnsafeRawBufferPointer) throws(FileWriteError) in
                chunks.append(bytes.count)
                joined += bytes
            }
            try fill(output)
            try output.finish()
            XCTAssertEqual(chunks, [whole.count], "\(name): a chunk the size of the file is one write")
            XCTAssertEqual(joined, whole, name)
        }
    }

    /// Most of a stopped run's records are spliced, not encoded: the kinds
    /// are found, and a record unlike its neighbours still comes out right.
    func testAKindIsSplicedAfterItsFirstRecord() throws {
        let report = try stoppedRun()
        let encoder = ResultCoding.encoder(pretty: false)
        let renders = Counter()
        var splicer = RecordSplicer(render: { record in
            renders.count += 1
            return try? Array(encoder.encode(record))
        }, plain: ResultCoding.isPlainJSONString)
        for record in report.trials {
            XCTAssertEqual(splicer.bytes(of: record), try Array(encoder.encode(record)), record.trial.id)
        }
        // Rendered: the 3 finished records and the 3 whose ids need
        // escaping, once each; every kind twice, to find its slots: the four
        // cells of the first experiment, the portfolio's four profiles, the
        // record without a rerun command, the one skipped for jemalloc, the
        // controlled cell.
        XCTAssertEqual(renders.count, 3 + 3 + 2 * (4 + 4 + 2 + 1), "of 180 records, the other 152 are spliced")
    }

    /// The trials the stop kept from starting have no row, but are counted
    /// and named under the table; the rest, skipped for another reason
    /// included, keep theirs.
    func testTheTableLeavesOutTheTrialsNeverStarted() throws {
        let report = try stoppedRun()
        let table = TableReport.render(report)
        let rows = table.split(separator: "\n").filter { $0.hasSuffix(" skipped") || $0.hasSuffix(" passed") }
        XCTAssertEqual(rows.count, 3 + 1, "the finished trials and the one skipped for jemalloc: \(table)")
        XCTAssertTrue(table.contains("176 trial(s) skipped: not run: the run was interrupted by SIGINT\n  counter/mutex/t1/r3, "), table)
        XCTAssertTrue(table.hasSuffix("skipped (interrupted by SIGINT); exit code 130\n"), table)
    }

    /// Where two encodings part, for a failure message.
    private func firstDifference(_ a: Data, _ b: Data) -> String {
        guard let at = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? (a.count == b.count ? nil : min(a.count, b.count))
        else { return "equal" }
        let around = { (d: Data) in String(decoding: d[max(0, at - 80)..<min(d.count, at + 80)], as: UTF8.self) }
        return "first difference at byte \(at):\n\(around(a))\n---\n\(around(b))"
    }

    private final class Counter { var count = 0 }
}
