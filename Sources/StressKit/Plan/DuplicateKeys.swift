import Yams

/// Turns Yams's "duplicated key" error into located plan problems.
///
/// Yams refuses a mapping with a repeated key while composing, before the plan
/// loader sees a tree, and says only where the *first* occurrence is. A user
/// needs the repeat: this finds it in the text (the next key with the same
/// spelling in the same mapping: the same column in block style, the same
/// bracket depth in flow style and JSON), blanks it out with a placeholder of the
/// same length so every other position stays put, composes again, and reads the
/// key path off the placeholder's place in the tree. Repeats in other mappings
/// are found the same way, one compose each.
enum DuplicateKeys {
    /// One repeated key found in the text.
    private struct Repeat {
        var key: String
        var line: Int
        var column: Int
        var firstLine: Int
        var placeholder: String
    }

    /// The problems for `text`, whose composing failed with a duplicated key
    /// `key` first seen at `mark`; nil when the repeat cannot be found (the
    /// caller then reports Yams's own message).
    static func problems(text: String, file: String, key: String, mark: Mark) -> [PlanProblem]? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
        var repeats: [Repeat] = []
        var next: (key: String, mark: Mark)? = (key, mark)
        var root: Node?
        var trailing: [PlanProblem] = []
        while let (key, mark) = next, repeats.count < 100 {
            guard let found = findRepeat(of: key, after: mark, in: lines) else { break }
            let placeholder = Self.placeholder(index: repeats.count, length: found.length)
            lines[found.line - 1].replaceSubrange(found.column - 1 ..< found.column - 1 + found.length, with: placeholder.unicodeScalars)
            repeats.append(Repeat(key: key, line: found.line, column: found.column, firstLine: mark.line, placeholder: placeholder))
            next = nil
            do {
                root = try Yams.compose(yaml: lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n"))
            } catch YamlError.duplicatedKeysInMapping(let keys, let context) {
                if let first = keys.sorted().first { next = (first, context.mark) }
            } catch {
                // Something else is wrong further on; report it after the repeats.
                trailing = [PlanProblem(file: file, path: .root, message: "not valid YAML or JSON: \(error)")]
            }
        }
        guard !repeats.isEmpty else { return nil }
        var paths: [String: PlanKeyPath] = [:]
        if let root { collectPaths(root, .root, into: &paths) }
        let located = repeats.map { r in
            PlanProblem(file: file, path: paths[r.placeholder].map { $0.appending(r.key) } ?? .root,
                        line: r.line, column: r.column, message: "'\(r.key)' is given twice (first at line \(r.firstLine))")
        }
        return located + trailing
    }

    /// A plain scalar of `length` characters that no plan contains: private-use
    /// code points, the first one numbering it.
    private static func placeholder(index: Int, length: Int) -> String {
        let first = Unicode.Scalar(0xE000 + UInt32(index % 0x1000))!
        return String(first) + String(repeating: "\u{E000}", count: Swift.max(0, length - 1))
    }

    /// Where every placeholder key sits: the path of the mapping holding it.
    private static func collectPaths(_ node: Node, _ path: PlanKeyPath, into paths: inout [String: PlanKeyPath]) {
        switch node {
        case .mapping(let map):
            for (key, value) in map {
                let name = key.string ?? ""
                if name.unicodeScalars.first.map({ (0xE000...0xEFFF).contains($0.value) }) == true { paths[name] = path }
                collectPaths(value, path.appending(name), into: &paths)
            }
        case .sequence(let seq):
            for (i, item) in seq.enumerated() { collectPaths(item, path.appending(i), into: &paths) }
        default: break
        }
    }

    // MARK: - Finding the repeat in the text

    /// The next key spelled like the one at `mark` in the same mapping: its
    /// 1-based line and column, and the length of its spelling.
    private static func findRepeat(of key: String, after mark: Mark, in lines: [[Unicode.Scalar]]) -> (line: Int, column: Int, length: Int)? {
        guard mark.line >= 1, mark.line <= lines.count, mark.column >= 1 else { return nil }
        let spellings = [key, "\"\(key)\"", "'\(key)'"].map { Array($0.unicodeScalars) }
        let line = lines[mark.line - 1]
        guard let own = spellings.first(where: { matches($0, in: line, at: mark.column - 1) }) else { return nil }
        if flowDepth(lines, upTo: (mark.line - 1, mark.column - 1)) == 0 {
            return findInBlock(spellings, column: mark.column, after: mark.line, in: lines)
        }
        return findInFlow(spellings, from: (mark.line - 1, mark.column - 1 + own.count), in: lines)
    }

    /// Block style: the mapping goes on while lines start at or right of the
    /// key's column; its keys start exactly there.
    private static func findInBlock(_ spellings: [[Unicode.Scalar]], column: Int, after line: Int, in lines: [[Unicode.Scalar]]) -> (Int, Int, Int)? {
        for l in line..<lines.count {
            let text = lines[l]
            guard let start = text.firstIndex(where: { $0 != " " && $0 != "\t" }), text[start] != "#" else { continue }
            if start < column - 1 { return nil }
            if start == column - 1, let s = spellings.first(where: { isKey($0, in: text, at: start) }) { return (l + 1, start + 1, s.count) }
        }
        return nil
    }

    /// Flow style (and JSON): keys of the same mapping are at bracket depth 0
    /// relative to the first one, after a `{` or `,`; the mapping ends when the
    /// depth drops below 0.
    private static func findInFlow(_ spellings: [[Unicode.Scalar]], from start: (line: Int, column: Int), in lines: [[Unicode.Scalar]]) -> (Int, Int, Int)? {
        var depth = 0
        var afterSeparator = false
        var l = start.line, c = start.column
        while l < lines.count {
            let text = lines[l]
            while c < text.count {
                let ch = text[c]
                if depth == 0 && afterSeparator && ch != " " && ch != "\t" {
                    if let s = spellings.first(where: { isKey($0, in: text, at: c) }) { return (l + 1, c + 1, s.count) }
                    afterSeparator = false
                }
                switch ch {
                case "\"" where opensQuote(text, c), "'" where opensQuote(text, c): c = endOfQuoted(text, from: c)
                case "#" where c == 0 || text[c - 1] == " " || text[c - 1] == "\t": c = text.count
                case "{", "[": depth += 1
                case "}", "]":
                    depth -= 1
                    if depth < 0 { return nil }
                case ",": if depth == 0 { afterSeparator = true }
                default: break
                }
                c += 1
            }
            l += 1
            c = 0
        }
        return nil
    }

    /// How many flow brackets are open at `position` (0: block context).
    private static func flowDepth(_ lines: [[Unicode.Scalar]], upTo position: (line: Int, column: Int)) -> Int {
        var depth = 0
        for l in 0...position.line {
            let text = lines[l]
            var c = 0
            let end = l == position.line ? position.column : text.count
            while c < end {
                switch text[c] {
                case "\"" where opensQuote(text, c), "'" where opensQuote(text, c): c = endOfQuoted(text, from: c)
                case "#" where c == 0 || text[c - 1] == " " || text[c - 1] == "\t": c = end
                case "{", "[": depth += 1
                case "}", "]": depth = Swift.max(0, depth - 1)
                default: break
                }
                c += 1
            }
        }
        return depth
    }

    /// Whether the quote at `c` starts a quoted scalar (rather than sitting
    /// inside a plain one, as in `don't`).
    private static func opensQuote(_ text: [Unicode.Scalar], _ c: Int) -> Bool {
        c == 0 || [" ", "\t", "{", "[", ",", ":", "-"].contains(text[c - 1])
    }

    /// The index of the quote that closes the quoted scalar opening at `start`
    /// (or the end of the line).
    private static func endOfQuoted(_ text: [Unicode.Scalar], from start: Int) -> Int {
        let quote = text[start]
        var c = start + 1
        while c < text.count {
            if quote == "\"" && text[c] == "\\" { c += 2; continue }
            if text[c] == quote {
                if quote == "'" && c + 1 < text.count && text[c + 1] == "'" { c += 2; continue }
                return c
            }
            c += 1
        }
        return text.count
    }

    private static func matches(_ spelling: [Unicode.Scalar], in text: [Unicode.Scalar], at i: Int) -> Bool {
        i >= 0 && i + spelling.count <= text.count && Array(text[i ..< i + spelling.count]) == spelling
    }

    /// `spelling` at `i`, followed by optional blanks and a `:`.
    private static func isKey(_ spelling: [Unicode.Scalar], in text: [Unicode.Scalar], at i: Int) -> Bool {
        guard matches(spelling, in: text, at: i) else { return false }
        var c = i + spelling.count
        while c < text.count && (text[c] == " " || text[c] == "\t") { c += 1 }
        return c < text.count && text[c] == ":"
    }
}
