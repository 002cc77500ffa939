import Foundation

/// The public API as the library's source files declare it, read line by
/// line: enough of Swift to find every public declaration and the `///`
/// comment above it, without a compiler. The tests that hold the API to its
/// documentation (PublicAPIDocumentationTests) run on what it finds.
///
/// What counts as public: a top-level `public` type; a `public` (or `open`)
/// member of a public type or of an extension of one; every member of a
/// `public extension`; a protocol's requirements; a public enum's cases.
/// Members of functions, of non-public types, and of `package` or internal
/// declarations are skipped.
enum PublicAPIScanner {
    /// One public declaration.
    struct Symbol {
        /// Its file, from the package root.
        var file: String
        /// Its line (1-based).
        var line: Int
        /// `struct`, `func`, `init`, `var`, `case`, …
        var kind: String
        /// Its name as declared (`read`, `Kind`, `==`); empty for `init` and `subscript`.
        var name: String
        /// The type or extension it is declared in; nil at top level.
        var parent: String?
        /// The declaration, its lines joined until its parentheses balance.
        var signature: String
        /// The `///` lines above it (attributes skipped), without the slashes.
        var documentation: [String]
        /// The attribute lines directly above it (`@available(*, deprecated, …)`).
        var attributes: [String]

        /// `file:line`, for failure messages.
        var location: String { "\(file):\(line)" }
        /// The doc comment as one line of text.
        var documentationText: String { documentation.joined(separator: " ") }
    }

    /// The names declared `public` at top level (`public struct X`, …), by
    /// the same pattern the API count uses.
    static let topLevelTypePattern = #"^public (final )?(class|struct|enum|protocol|actor|typealias) [A-Za-z_]+"#

    private static let declarationPattern = try! NSRegularExpression(pattern:
        #"^(?:@[\w.]+(?:\([^)]*\))?\s+)*((?:(?:public|open|package|internal|fileprivate|private|final|indirect|static|class|override|mutating|nonmutating|nonisolated|convenience|required|lazy|weak|unowned|dynamic|consuming|borrowing)(?:\(set\))?\s+)*)(struct|class|enum|extension|protocol|actor|func|init\??|var|let|typealias|subscript|case|associatedtype|deinit)\b\s*([A-Za-z_`][\w`]*|[=<>!+\-*/%&|^~]+)?"#)

    private static let containerKinds: Set<String> = ["struct", "class", "enum", "extension", "protocol", "actor"]

    /// Every `.swift` file under `directory`, as (path from `root`, text), in path order.
    static func sources(under directory: URL, root: URL) throws -> [(path: String, text: String)] {
        var paths: [String] = []
        if let walker = FileManager.default.enumerator(atPath: directory.path) {
            paths = walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
        }
        let prefix = String(directory.path.dropFirst(root.path.count + 1))
        return try paths.map { ("\(prefix)/\($0)", try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The public top-level type names the files declare.
    static func topLevelTypes(in files: [(path: String, text: String)]) -> [String] {
        let pattern = try! NSRegularExpression(pattern: topLevelTypePattern)
        return files.flatMap { file in
            file.text.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
                let text = String(line)
                guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                      let range = Range(match.range, in: text) else { return nil }
                return text[range].split(separator: " ").last.map(String.init)
            }
        }
    }

    /// The public members the files add to types of other modules
    /// (`extension String { public var … }`): public API of the library all
    /// the same, though no public type of its own declares them.
    static func foreignExtensionMembers(in files: [(path: String, text: String)]) -> [Symbol] {
        let declared = try! NSRegularExpression(pattern: #"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*(?:struct|class|enum|protocol|actor|typealias) ([A-Za-z_][A-Za-z0-9_]*)"#, options: .anchorsMatchLines)
        let extended = try! NSRegularExpression(pattern: #"^(?:public\s+)?extension ([A-Za-z_][A-Za-z0-9_]*)"#, options: .anchorsMatchLines)
        func names(_ pattern: NSRegularExpression) -> Set<String> {
            Set(files.flatMap { file in
                pattern.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text))
                    .compactMap { Range($0.range(at: 1), in: file.text).map { String(file.text[$0]) } }
            })
        }
        let foreign = names(extended).subtracting(names(declared))
        return files.flatMap { symbols(in: $0.text, file: $0.path, publicTypes: foreign) }
            .filter { symbol in symbol.parent.map { foreign.contains(String($0.split(separator: ".")[0])) } ?? false }
    }

    /// One open brace's scope: what it belongs to and whether its members can be public.
    private struct Scope {
        var kind: String
        var name: String
        /// Members declared `public` in it are public API.
        var isPublic: Bool
        /// Members without an access modifier are public (`public extension`).
        var membersDefaultToPublic: Bool
    }

    /// Every public declaration in `files`.
    static func symbols(in files: [(path: String, text: String)]) -> [Symbol] {
        let publicTypes = Set(topLevelTypes(in: files))
        return files.flatMap { symbols(in: $0.text, file: $0.path, publicTypes: publicTypes) }
    }

    /// The public declarations of one file, given the package's public top-level types.
    static func symbols(in text: String, file: String, publicTypes: Set<String>) -> [Symbol] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [Symbol] = []
        var scopes: [Scope] = []
        var inBlockComment = false
        var inMultilineString = false
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if inMultilineString {
                if line.contains("\"\"\"") { inMultilineString = false }
                continue
            }
            if inBlockComment {
                if line.contains("*/") { inBlockComment = false }
                continue
            }
            if line.hasPrefix("/*") && !line.contains("*/") { inBlockComment = true; continue }
            let code = codeOnly(raw)
            if code.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString = true }

            var opening: Scope?
            if !line.hasPrefix("//"),
               let match = declarationPattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) {
                let group = { (i: Int) in Range(match.range(at: i), in: line).map { String(line[$0]) } ?? "" }
                let modifiers = group(1).split(separator: " ").map { String($0) }
                let kind = group(2).hasPrefix("init") ? "init" : group(2)
                let name = group(3)
                let declaredPublic = modifiers.contains("public") || modifiers.contains("open")
                let isPublic: Bool
                var membersDefaultToPublic = false
                var containerPublic: Bool
                if let scope = scopes.last {
                    let inFunction = scope.kind == "body"
                    let implicitlyPublic = (scope.kind == "protocol" && kind != "extension")
                        || (scope.kind == "enum" && kind == "case")
                        || (scope.membersDefaultToPublic && !modifiers.contains(where: { ["private", "fileprivate", "internal", "package"].contains($0) }))
                    isPublic = !inFunction && scope.isPublic && (declaredPublic || implicitlyPublic)
                    containerPublic = isPublic
                } else {
                    isPublic = declaredPublic && kind != "extension"
                    let extended = name.split(separator: ".").first.map(String.init) ?? name
                    containerPublic = isPublic || (kind == "extension" && publicTypes.contains(extended))
                    membersDefaultToPublic = kind == "extension" && declaredPublic
                }
                if isPublic && kind != "extension" {
                    found.append(Symbol(
                        file: file, line: index + 1, kind: kind, name: name, parent: scopes.last?.name,
                        signature: signature(from: index, in: lines), documentation: documentation(above: index, in: lines),
                        attributes: attributes(above: index, in: lines)))
                }
                if containerKinds.contains(kind) {
                    opening = Scope(kind: kind, name: name, isPublic: containerPublic, membersDefaultToPublic: membersDefaultToPublic)
                } else if ["func", "init", "subscript", "deinit", "var", "let"].contains(kind) {
                    opening = Scope(kind: "body", name: scopes.last?.name ?? "", isPublic: false, membersDefaultToPublic: false)
                }
            }
            for character in code {
                if character == "{" {
                    scopes.append(opening ?? Scope(kind: "body", name: scopes.last?.name ?? "", isPublic: false, membersDefaultToPublic: false))
                    opening = nil
                } else if character == "}", !scopes.isEmpty {
                    scopes.removeLast()
                }
            }
        }
        return found
    }

    /// `line` without string literals' contents and without a `//` comment,
    /// so that braces in them are not counted.
    private static func codeOnly(_ line: String) -> String {
        var out = ""
        var inString = false
        var escaped = false
        var previous: Character = " "
        for character in line {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false; out.append("\"") }
                continue
            }
            if character == "/" && previous == "/" { out.removeLast(); break }
            if character == "\"" { inString = true }
            out.append(character)
            previous = character
        }
        return out
    }

    /// The declaration starting at `index`, continued over lines until its parentheses close.
    private static func signature(from index: Int, in lines: [String]) -> String {
        var text = lines[index].trimmingCharacters(in: .whitespaces)
        var next = index + 1
        while text.filter({ $0 == "(" }).count > text.filter({ $0 == ")" }).count, next < lines.count {
            text += " " + lines[next].trimmingCharacters(in: .whitespaces)
            next += 1
        }
        return text
    }

    /// The attribute lines directly above `index`.
    private static func attributes(above index: Int, in lines: [String]) -> [String] {
        var j = index - 1
        var found: [String] = []
        while j >= 0, lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("@") {
            found.insert(lines[j].trimmingCharacters(in: .whitespaces), at: 0)
            j -= 1
        }
        return found
    }

    /// The `///` lines directly above `index`, past any attribute lines.
    private static func documentation(above index: Int, in lines: [String]) -> [String] {
        var j = index - 1
        while j >= 0, lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("@") { j -= 1 }
        var doc: [String] = []
        while j >= 0 {
            let line = lines[j].trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("///") else { break }
            doc.insert(line.dropFirst(3).trimmingCharacters(in: .whitespaces), at: 0)
            j -= 1
        }
        return doc
    }

    /// The text between a declaration's first parenthesis and its match
    /// (its parameter list), and what follows it (effects and result).
    static func parameterList(of signature: String) -> (parameters: String, rest: String)? {
        guard let open = signature.firstIndex(of: "(") else { return nil }
        var depth = 0
        var index = open
        while index < signature.endIndex {
            if signature[index] == "(" { depth += 1 }
            if signature[index] == ")" {
                depth -= 1
                if depth == 0 {
                    return (String(signature[signature.index(after: open)..<index]).trimmingCharacters(in: .whitespaces),
                            String(signature[signature.index(after: index)...]))
                }
            }
            index = signature.index(after: index)
        }
        return nil
    }
}
