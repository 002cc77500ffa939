import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// The results file written in slices is the results file: byte for byte
/// what one encoder writes, for any number of trials, records with empty
/// lists and maps, violations and measurements included.
final class ReportEncodingTests: XCTestCase {
    func testSlicedEncodingIsByteForByteTheEncodersOwn() throws {
        let run = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                strategies: [mutex, unsynchronized]
                threads: [1, 2]
                ops: 2000
            """)
        XCTAssertEqual(run.trials.count, 4)
        // The slices are spliced in where the report without trials has its
        // empty list (else every file would be the plain encoder's, slowly).
        var shell = run
        shell.trials = []
        let outer = String(decoding: try ResultCoding.encoder().encode(shell), as: UTF8.self)
        XCTAssertNotNil(try ResultCoding.encoder().encode(shell).range(of: ResultCoding.emptyTrials), outer)
        for count in [0, 1, 63, 64, 65, 200, 1001] {
            var report = run
            report.trials = (0..<count).map { i in
                var t = run.trials[i % run.trials.count]
                t.trial.id += "-\(i)"
                if i % 3 == 0 { t.failure = FailureReport(message: "m \(i) \"quoted\" / slash\nnewline", outputTail: []) }
                return t
            }
            report.cells = CellSummary.of(report)
            let plain = try ResultCoding.encoder().encode(report)
            let sliced = try ResultCoding.encodeResults(report)
            XCTAssertEqual(sliced, plain, "\(count) trials: the sliced file differs")
            XCTAssertEqual(try ResultCoding.decoder().decode(RunReport.self, from: sliced), report)
        }
    }

    /// Cell summaries gather a cell's trials wherever they are in the
    /// report (runs of one cell, or cells interleaved), in the order the
    /// cells first appear, with every trial's outcome counted.
    func testCellsGatherTheirTrialsWhereverTheyAre() throws {
        let run = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                strategies: [mutex, spinlock]
                threads: 1
                ops: 200
            """)
        XCTAssertEqual(run.trials.count, 2)
        var report = run
        let (a, b) = (run.trials[0], run.trials[1])
        var skipped = a
        skipped.outcome = .skipped
        skipped.measurement = nil
        report.trials = [a, a, b, skipped, b, b, a]
        let cells = CellSummary.of(report)
        XCTAssertEqual(cells.map(\.strategy), [a.trial.strategy, b.trial.strategy])
        XCTAssertEqual(cells.map(\.repetitions), [4, 3])
        XCTAssertEqual(cells[0].outcomes, [a.outcome.rawValue: 3, "skipped": 1])
        XCTAssertEqual(cells[1].outcomes, [b.outcome.rawValue: 3])
        XCTAssertEqual(cells[0].expectation.values.reduce(0, +), 4)
        XCTAssertEqual(cells[0].samples, 3, "the skipped trial has no sample")
    }
}
