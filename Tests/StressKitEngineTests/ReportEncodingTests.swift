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
}
