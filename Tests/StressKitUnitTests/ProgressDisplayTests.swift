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
}
