import Foundation
import StressKitTestSupport
import XCTest

/// The public API stays small and documented: every public symbol of the
/// library targets has a doc comment of a few words at least, every public
/// function and initializer with parameters says what they are
/// (`- Parameters:` or `- Parameter`), every one with a result says what it
/// returns (`- Returns:`), and the count of public top-level types stays at
/// most 80. Read from Sources/ (PublicAPIScanner), so a new public symbol
/// without its documentation fails here, named by file and line.
final class PublicAPIDocumentationTests: XCTestCase {
    /// The most public top-level types the library targets together may declare.
    static let maximumPublicTypes = 80

    /// Fewer words than this is a placeholder ("A report.", "Options.").
    static let minimumWords = 3

    /// Declarations whose meaning their protocol gives, so that a doc comment
    /// would repeat it: `==`, `<`, `hash(into:)`, `encode(to:)`,
    /// `init(from:)`, `description`, and the literal initializers.
    static func isProtocolWitness(_ symbol: PublicAPIScanner.Symbol) -> Bool {
        let s = symbol.signature
        return s.contains("func ==") || s.contains("func <") || s.contains("func hash(into")
            || s.contains("func encode(to") || s.contains("init(from decoder")
            || (symbol.kind == "var" && ["description", "debugDescription"].contains(symbol.name))
            || s.range(of: #"init\(\w+Literal"#, options: .regularExpression) != nil
    }

    /// The engine's underscored hooks (`_MeasuredLoop`, `_MeasuredTaskLoop`,
    /// `_runMeasuredLoop(_:)`, `_runMeasuredTaskLoop(_:)`): public only so
    /// that the generic measured loop can be specialized in a strategy's own
    /// module, never called by a user, and documented for the harness's
    /// authors in their summary. Their parameters are the engine's own
    /// plumbing, so they need no `- Parameters:` section.
    static func isUnderscoredHook(_ symbol: PublicAPIScanner.Symbol) -> Bool {
        symbol.name.hasPrefix("_") || (symbol.parent ?? "").hasPrefix("_")
    }

    private var root: URL { WorkloadTestSupport.packageRoot }

    private func librarySources() throws -> [(path: String, text: String)] {
        try PublicAPIScanner.sources(under: root.appendingPathComponent("Sources"), root: root)
    }

    /// Problems of the documentation of `symbols`, one line each, `file:line: what`.
    static func documentationProblems(_ symbols: [PublicAPIScanner.Symbol]) -> [String] {
        var problems: [String] = []
        for symbol in symbols where !isProtocolWitness(symbol) {
            let text = symbol.documentationText
            let words = text.split(whereSeparator: { $0 == " " }).count
            if words < minimumWords {
                problems.append("\(symbol.location): \(symbol.kind) \(symbol.name.isEmpty ? symbol.kind : symbol.name) has \(text.isEmpty ? "no doc comment" : "only \"\(text)\" as its doc comment")")
                continue
            }
            guard ["func", "init", "subscript"].contains(symbol.kind), !isUnderscoredHook(symbol),
                  let (parameters, rest) = PublicAPIScanner.parameterList(of: symbol.signature) else { continue }
            if !parameters.isEmpty, text.range(of: #"- Parameters?\b"#, options: .regularExpression) == nil {
                problems.append("\(symbol.location): \(symbol.signature.prefix(80)) has parameters but no `- Parameters:` section")
            }
            if symbol.kind != "init", let result = resultType(rest), !["Void", "()", "Never"].contains(result),
               !text.contains("- Returns:") {
                problems.append("\(symbol.location): \(symbol.signature.prefix(80)) returns \(result) but has no `- Returns:` line")
            }
        }
        return problems
    }

    /// The result type after a parameter list (`async throws -> R where …`), nil when there is none.
    static func resultType(_ rest: String) -> String? {
        guard let arrow = rest.range(of: "->") else { return nil }
        let before = rest[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
        // Effects only: an arrow past anything else belongs to a closure type.
        let effects = before.replacingOccurrences(of: #"throws\([^)]*\)"#, with: "", options: .regularExpression)
            .split(separator: " ").filter { !["async", "throws", "rethrows"].contains($0) }
        guard effects.isEmpty else { return nil }
        var result = rest[arrow.upperBound...].trimmingCharacters(in: .whitespaces)
        for stop in [" where ", " {", "{"] {
            if let r = result.range(of: stop) { result = String(result[..<r.lowerBound]) }
        }
        return result.trimmingCharacters(in: .whitespaces)
    }

    func testEveryPublicSymbolHasARealDocComment() throws {
        let symbols = PublicAPIScanner.symbols(in: try librarySources())
        XCTAssertGreaterThan(symbols.count, 300, "the scanner found too few public symbols to be reading Sources/ right")
        let problems = Self.documentationProblems(symbols)
        XCTAssert(problems.isEmpty, "\(problems.count) public symbol(s) without a real doc comment:\n" + problems.joined(separator: "\n"))
    }

    func testThePublicAPIHasAtMostEightyTopLevelTypes() throws {
        let types = PublicAPIScanner.topLevelTypes(in: try librarySources())
        XCTAssertGreaterThan(types.count, 20, "the scanner found too few public types to be reading Sources/ right")
        XCTAssertLessThanOrEqual(types.count, Self.maximumPublicTypes,
            "\(types.count) public top-level types; make what a user does not need `package`:\n" + types.sorted().joined(separator: " "))
    }

    /// A public member added to another module's type (`String`, `Duration`)
    /// is API that no count of types sees, and every client of StressKit
    /// would find it on its own strings: what the command line or the tests
    /// need there is `package`.
    func testNoPublicMembersOnOtherModulesTypes() throws {
        let leaked = PublicAPIScanner.foreignExtensionMembers(in: try librarySources())
        XCTAssert(leaked.isEmpty, "public members of other modules' types:\n"
            + leaked.map { "\($0.location): extension \($0.parent ?? "") { \($0.signature.prefix(70)) }" }.joined(separator: "\n"))
        let sample = PublicAPIScanner.foreignExtensionMembers(in: [(path: "Leak.swift", text: """
            /// Ours.
            public struct Ours {}
            extension Ours {
                /// Fine: our own type.
                public var fine: Int { 0 }
            }
            extension String {
                /// Leaked onto every client's strings.
                public var leaked: String { self }
                /// Not public, so not leaked.
                package var kept: String { self }
            }
            """)])
        XCTAssertEqual(sample.map(\.location), ["Leak.swift:9"], "the check sees a leaked member")
    }

    /// Public declarations that are not `Duration`s yet still count time in
    /// integer nanoseconds, each with its reason: ``StepAccess``'s
    /// `waitUntil(_:timeoutNs:)` is the engine's own description of a step,
    /// read on the hot path (a user writes ``Step/waitUntil(_:resource:timeout:_:then:)``
    /// with a `Duration`); deprecated declarations are the old forms kept
    /// for one release.
    static let nanosecondExceptions: Set<String> = ["waitUntil(Int, timeoutNs: Int)"]

    /// The one unit of the API's durations is `Duration`: no public member
    /// is named `…Ns` or takes an argument labelled `…Ns:` (the results'
    /// JSON keeps such fields, behind `package` properties with `Duration`
    /// accessors).
    func testEveryPublicDurationIsADuration() throws {
        let nanoseconds = Self.nanosecondSymbols(PublicAPIScanner.symbols(in: try librarySources()))
        XCTAssert(nanoseconds.isEmpty, "public integer nanoseconds; give them a `Duration` face:\n"
            + nanoseconds.map { "\($0.location): \($0.signature.prefix(80))" }.joined(separator: "\n"))
    }

    /// The symbols among `symbols` that count time in integer nanoseconds
    /// (by their name or an argument label), deprecated ones and the
    /// ``nanosecondExceptions`` left out.
    static func nanosecondSymbols(_ symbols: [PublicAPIScanner.Symbol]) -> [PublicAPIScanner.Symbol] {
        symbols.filter { symbol in
            guard !symbol.attributes.contains(where: { $0.contains("deprecated") }) else { return false }
            let labelled = symbol.signature.range(of: #"\b\w+Ns\s*:"#, options: .regularExpression) != nil
            let named = symbol.name.hasSuffix("Ns")
            return (named || labelled) && !nanosecondExceptions.contains(where: { symbol.signature.contains($0) })
        }
    }

    /// The checks see what they are for, so that the tests above cannot
    /// pass by finding nothing.
    func testTheCheckerSeesMissingAndPlaceholderDocumentation() {
        let source = """
            /// A type a user needs, documented.
            public struct Shown {
                /// A report.
                public var placeholder: Int
                public var undocumented: Int
                /// Internal, so not checked.
                var hidden: Int
                /// Adds one value to another, and says nothing of either.
                public func add(_ a: Int, to b: Int) -> Int { a + b }
                /// Resets the counts to zero, taking nothing and returning nothing.
                public mutating func reset() {}
                /// Equal when their fields are.
                public static func == (a: Shown, b: Shown) -> Bool { true }
                /// Runs the body; its locals are not API.
                ///
                /// - Parameter body: What to run.
                /// - Returns: What `body` returns.
                public func run<R>(_ body: () -> R) -> R {
                    let local = body()
                    return local
                }
            }
            extension Shown {
                public var fromExtension: Int { 0 }
            }
            /// Not public: nothing in it is checked.
            package struct Hidden {
                public var anything: Int
            }
            /// A public enum.
            public enum Choice {
                case first
                /// The second choice of the two.
                case second
            }
            """
        let symbols = PublicAPIScanner.symbols(in: source, file: "Shown.swift", publicTypes: ["Shown", "Choice"])
        XCTAssertEqual(symbols.map(\.name), ["Shown", "placeholder", "undocumented", "add", "reset", "==", "run", "fromExtension", "Choice", "first", "second"])
        XCTAssertEqual(Self.documentationProblems(symbols), [
            "Shown.swift:4: var placeholder has only \"A report.\" as its doc comment",
            "Shown.swift:5: var undocumented has no doc comment",
            "Shown.swift:9: public func add(_ a: Int, to b: Int) -> Int { a + b } has parameters but no `- Parameters:` section",
            "Shown.swift:9: public func add(_ a: Int, to b: Int) -> Int { a + b } returns Int but has no `- Returns:` line",
            "Shown.swift:24: var fromExtension has no doc comment",
            "Shown.swift:32: case first has no doc comment",
        ])
        XCTAssertEqual(PublicAPIScanner.topLevelTypes(in: [(path: "Shown.swift", text: source)]), ["Shown", "Choice"])

        let durations = """
            /// Times of a thing, in two units.
            public struct Timed {
                /// The delay, in nanoseconds.
                public var delayNs: Int
                /// Waits, in nanoseconds.
                public func wait(forNs: Int) {}
                /// The delay as a duration.
                public var delay: Duration { .nanoseconds(delayNs) }
                /// The old name.
                @available(*, deprecated, renamed: "delay")
                public var oldNs: Int { delayNs }
            }
            """
        let timed = PublicAPIScanner.symbols(in: durations, file: "Timed.swift", publicTypes: ["Timed"])
        XCTAssertEqual(Self.nanosecondSymbols(timed).map(\.location), ["Timed.swift:4", "Timed.swift:6"])
    }
}
