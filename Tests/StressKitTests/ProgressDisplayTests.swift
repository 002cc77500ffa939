import Foundation
@testable import StressBenchCLI
import XCTest

/// The status line `run` draws on a terminal: it never wraps (a wrapped line
/// cannot be redrawn in place and leaves stale lines behind), and under
/// `TERM=dumb` it is plain text.
final class ProgressDisplayTests: XCTestCase {
    func testTheLineIsCutToTheTerminalWidth() {
        let line = "[12/24] counter/pthread-mutex/t4/r0 · elapsed 3s · about 8s left"
        XCTAssertEqual(ProgressDisplay.fitted(line, columns: 200), line)
        let cut = ProgressDisplay.fitted(line, columns: 50)
        XCTAssertEqual(cut.count, 49, "one column spare: a full-width line wraps on some terminals")
        XCTAssertEqual(cut, String(line.prefix(48)) + "…")
        XCTAssertEqual(ProgressDisplay.fitted(line, columns: nil), line, "width unknown: as is")
    }

    func testAPlainTerminalGetsNoEscapeSequences() {
        XCTAssertEqual(ProgressDisplay.clearing(width: 5, plain: false), "\r\u{1B}[K")
        XCTAssertEqual(ProgressDisplay.clearing(width: 5, plain: true), "\r     \r")
        XCTAssertEqual(ProgressDisplay.clearing(width: 0, plain: true), "\r")
    }

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
