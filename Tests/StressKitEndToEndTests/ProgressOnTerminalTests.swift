import Foundation
@testable import StressBenchCLI
import StressKitTestSupport
import XCTest

/// The progress line of a real `stressbench run` on a pseudo-terminal.
final class ProgressOnTerminalTests: XCTestCase {
    /// Through a pseudo-terminal of 50 columns with TERM=dumb: every redraw
    /// fits in 49 columns and no escape character is written.
    func testADumbNarrowTerminalGetsPlainLinesThatFit() throws {
        let dir = try TestSupport.temporaryDirectory()
        let plan = dir.appendingPathComponent("narrow.yaml").path
        try """
            experiments:
              - name: a-rather-long-experiment-name
                workload: counter
                strategies: [mutex]
                threads: [1, 2]
                ops: 1000
                warmup: 0s
            """.write(toFile: plan, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("out.txt").path
        let (status, screen) = try TestSupport.onTerminal("stty cols 50; TERM=dumb '\(TestSupport.stressbenchPath)' run '\(plan)' > '\(out)'")
        XCTAssertEqual(status, 0, screen)
        XCTAssertTrue(screen.contains("[1/2] a-rather-long-experiment-name/mutex/t1/r0"), screen.debugDescription)
        XCTAssertFalse(screen.contains("\u{1B}"), "no escape sequences under TERM=dumb: \(screen.debugDescription)")
        let redraws = screen.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).map(String.init)
        XCTAssertTrue(redraws.allSatisfy { $0.count <= 49 }, redraws.filter { $0.count > 49 }.description)
        XCTAssertTrue(redraws.contains { $0.hasSuffix("…") }, "the long line was cut: \(redraws)")
    }
}
