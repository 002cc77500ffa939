import Foundation
import XCTest

/// The README and the guide pages under docs/, as the tests that hold the
/// documentation to the code read them: a quoted example, a list of columns or
/// a workflow may live on any page, and a test finds it wherever it is.
package enum DocumentationPages {
    /// One Markdown page: its path from the package root, and its text.
    package struct Page {
        package let path: String
        package let text: String
    }

    /// README.md, then every Markdown file under docs/ (the raw benchmark
    /// write-ups in docs/benchmarks/ too), in path order.
    package static func all() throws -> [Page] {
        let root = WorkloadTestSupport.packageRoot
        var paths = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        if let walker = FileManager.default.enumerator(atPath: docs.path) {
            paths += walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        }
        return try paths.map { Page(path: $0, text: try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The one page holding `marker`: fails the test when no page or more
    /// than one does (a section quoted twice would let one copy drift).
    package static func page(containing marker: String, file: StaticString = #filePath, line: UInt = #line) throws -> Page {
        let pages = try all().filter { $0.text.contains(marker) }
        XCTAssertEqual(pages.count, 1, "pages holding \(marker.debugDescription): \(pages.map(\.path))", file: file, line: line)
        return try XCTUnwrap(pages.first, file: file, line: line)
    }
}
