import Foundation
import StressKitTestSupport
import XCTest

/// The README's Swift example is code that runs: the engine tests run it
/// (ReadmeStressTestExample.swift), and this test fails when the README's
/// quotation and that code part.
final class ReadmeExampleTests: XCTestCase {
    func testTheReadmeQuotesTheStressTestThatRuns() throws {
        let root = WorkloadTestSupport.packageRoot
        let source = try String(contentsOf: root.appendingPathComponent("Tests/StressKitEngineTests/ReadmeStressTestExample.swift"), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try XCTUnwrap(lines.firstIndex { $0.contains("// README: begin") }, "the example's begin marker")
        let end = try XCTUnwrap(lines.firstIndex { $0.contains("// README: end") }, "the example's end marker")
        XCTAssertLessThan(begin + 1, end, "the markers enclose the example")
        // The function, less the suite's indentation.
        let quoted = lines[(begin + 1)..<end].map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }.joined(separator: "\n")
        XCTAssertTrue(quoted.contains("StressTest("), "the example runs a StressTest:\n\(quoted)")
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains("```swift\nimport StressKitTesting\nimport Testing\n\n" + quoted + "\n```"),
                      "README.md's \"The same from Swift\" block must quote, after its two imports, exactly:\n\(quoted)")
    }
}
