import Foundation
import StressKitTestSupport
import XCTest

/// Every relative link in the README and under docs/ leads somewhere: the file
/// or folder exists, and an anchor (`page.md#section`) names a heading of that
/// page, as GitHub spells heading anchors.
final class DocumentationLinkTests: XCTestCase {
    func testEveryRelativeLinkResolves() throws {
        let pages = try DocumentationPages.all()
        XCTAssertTrue(pages.contains { $0.path == "docs/running.md" }, "the guide pages are found")
        var problems: [String] = []
        var checked = 0
        for page in pages {
            for link in MarkdownLinks.links(in: page.text) {
                checked += 1
                if let problem = MarkdownLinks.problem(with: link, on: page.path, root: WorkloadTestSupport.packageRoot) {
                    problems.append(problem)
                }
            }
        }
        XCTAssertGreaterThan(checked, 100, "the README and the guides link each other")
        XCTAssertEqual(problems, [], problems.joined(separator: "\n"))
    }

    /// The README links every guide page, so none is an orphan.
    func testTheReadmeLinksEveryGuidePage() throws {
        let pages = try DocumentationPages.all()
        let readme = try XCTUnwrap(pages.first { $0.path == "README.md" })
        let targets = Set(MarkdownLinks.links(in: readme.text).map { $0.split(separator: "#", omittingEmptySubsequences: false)[0] })
        let guides = pages.map(\.path).filter { $0.hasPrefix("docs/") && !$0.dropFirst(5).contains("/") }
        // The guide pages were found (a loop over none would pass), the pages
        // below docs/ (benchmark write-ups) are not among them.
        XCTAssertTrue(guides.contains("docs/running.md") && guides.contains("docs/contributing.md"), "\(guides)")
        XCTAssertFalse(guides.contains { $0.hasPrefix("docs/benchmarks/") }, "\(guides)")
        for page in guides {
            XCTAssertTrue(targets.contains(Substring(page)), "README.md does not link \(page)")
        }
    }

    /// The checker itself: it finds links outside code only, and reports a
    /// missing file, a missing anchor and a link out of the repository.
    func testTheCheckerSeesBrokenLinks() throws {
        let text = """
            # A page

            ## What `sync` costs: 2 forms

            See [here](#what-sync-costs-2-forms), [the plans](Plans/), [gone](docs/nowhere.md),
            [bad anchor](#nowhere), [web](https://example.com/x), and ![a chart](docs/images/latency.png "title").
            `[not a link](in/code.md)`

            ```
            [not a link either](in/a/block.md)
            ```
            """
        XCTAssertEqual(MarkdownLinks.links(in: text), [
            "#what-sync-costs-2-forms", "Plans/", "docs/nowhere.md", "#nowhere", "https://example.com/x", "docs/images/latency.png",
        ])
        let root = WorkloadTestSupport.packageRoot
        let check = { (link: String, page: String) in
            MarkdownLinks.problem(with: link, on: page, root: root, pageText: text)
        }
        XCTAssertNil(check("#what-sync-costs-2-forms", "README.md"))
        XCTAssertNil(check("Plans/", "README.md"))
        XCTAssertNil(check("../Plans/quickstart.yaml", "docs/plans.md"))
        XCTAssertNil(check("https://example.com/x", "README.md"))
        XCTAssertNotNil(check("#nowhere", "README.md"))
        XCTAssertNotNil(check("docs/nowhere.md", "README.md"))
        XCTAssertNotNil(check("nowhere.md", "docs/plans.md"))
        XCTAssertNotNil(check("plans.md#no-such-heading", "docs/running.md"))
        XCTAssertNil(check("plans.md#the-matrix", "docs/running.md"))
        XCTAssertNotNil(check("../../outside.md", "docs/plans.md"), "a link out of the repository")
    }

    func testHeadingAnchorsAreSpelledAsGitHubSpellsThem() {
        XCTAssertEqual(MarkdownLinks.anchor(for: "Paired comparison of two builds: `stressbench ab`"),
                       "paired-comparison-of-two-builds-stressbench-ab")
        XCTAssertEqual(MarkdownLinks.anchor(for: "What the Swift `DispatchQueue.sync` overlay costs"),
                       "what-the-swift-dispatchqueuesync-overlay-costs")
        XCTAssertEqual(MarkdownLinks.anchor(for: "Timing: which clock, and how many operations"),
                       "timing-which-clock-and-how-many-operations")
        XCTAssertEqual(MarkdownLinks.anchors(in: "# A\n## B\n```\n# not a heading\n```\n## B\n"), ["a", "b", "b-1"])
    }
}

/// Links in Markdown text, and whether a relative one resolves.
enum MarkdownLinks {
    /// The targets of `[text](target)` and `![alt](target)` links, in order,
    /// outside fenced code blocks and inline code.
    static func links(in text: String) -> [String] {
        var found: [String] = []
        let pattern = try! NSRegularExpression(pattern: #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#)
        for line in proseLines(of: text) {
            let prose = withoutInlineCode(line)
            let range = NSRange(prose.startIndex..., in: prose)
            for match in pattern.matches(in: prose, range: range) {
                found.append(String(prose[Range(match.range(at: 1), in: prose)!]))
            }
        }
        return found
    }

    /// What is wrong with `link` on the page at `page` (a path from `root`),
    /// or nil when it resolves. Links with a scheme (`https:`) are not checked.
    static func problem(with link: String, on page: String, root: URL, pageText: String? = nil) -> String? {
        if link.range(of: #"^[a-zA-Z][a-zA-Z0-9+.-]*:"#, options: .regularExpression) != nil { return nil }
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let path = parts[0].removingPercentEncoding ?? parts[0]
        let anchor = parts.count > 1 ? parts[1] : nil
        let target: String
        if path.isEmpty {
            target = page
        } else {
            guard !path.hasPrefix("/"), let joined = normalized((page as NSString).deletingLastPathComponent + "/" + path) else {
                return "\(page): \(link) leads out of the repository"
            }
            target = joined
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent(target).path, isDirectory: &isDirectory) else {
            return "\(page): \(link): no file \(target)"
        }
        guard let anchor, !anchor.isEmpty else { return nil }
        guard target.hasSuffix(".md"), !isDirectory.boolValue else { return nil }
        let text = target == page && pageText != nil
            ? pageText! : (try? String(contentsOf: root.appendingPathComponent(target), encoding: .utf8)) ?? ""
        return anchors(in: text).contains(anchor) ? nil : "\(page): \(link): \(target) has no heading with the anchor #\(anchor)"
    }

    /// `path` with `.` and `..` resolved (a trailing `/` kept), or nil when it
    /// climbs above the root.
    private static func normalized(_ path: String) -> String? {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                guard parts.popLast() != nil else { return nil }
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/") + (path.hasSuffix("/") ? "/" : "")
    }

    /// The anchors GitHub gives the page's headings, a repeated one numbered
    /// (`-1`, `-2`, ...).
    static func anchors(in text: String) -> [String] {
        var seen: [String: Int] = [:]
        return proseLines(of: text).compactMap { line -> String? in
            guard let heading = line.range(of: #"^#{1,6}\s+"#, options: .regularExpression) else { return nil }
            let base = anchor(for: String(line[heading.upperBound...]))
            defer { seen[base, default: 0] += 1 }
            return seen[base].map { "\(base)-\($0)" } ?? base
        }
    }

    /// GitHub's anchor for a heading: lower case, spaces as hyphens, and
    /// everything but letters, digits, `-` and `_` left out.
    static func anchor(for heading: String) -> String {
        var anchor = ""
        for character in heading.trimmingCharacters(in: .whitespaces).lowercased() {
            if character == " " {
                anchor.append("-")
            } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
                anchor.append(character)
            }
        }
        return anchor
    }

    /// The lines outside fenced code blocks (``` or ~~~).
    private static func proseLines(of text: String) -> [Substring] {
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                continue
            }
            if !inFence { lines.append(line) }
        }
        return lines
    }

    /// `line` with its inline code spans (`...`) taken out.
    private static func withoutInlineCode(_ line: Substring) -> String {
        var out = ""
        var inCode = false
        for character in line {
            if character == "`" { inCode.toggle(); continue }
            if !inCode { out.append(character) }
        }
        return out
    }
}
