import Yams
import StressCore

/// Typed reading of a composed YAML tree, recording a located problem for
/// every value that is missing or of the wrong kind instead of stopping at the
/// first. Used by ``PlanLoader``; each method returns nil after recording a problem.
struct PlanReader {
    let file: String
    private(set) var problems: [PlanProblem] = []

    init(file: String) { self.file = file }

    mutating func fail(_ path: PlanKeyPath, _ node: Node?, _ message: String) {
        problems.append(PlanProblem(file: file, path: path, line: node?.mark?.line, column: node?.mark?.column, message: message))
    }

    /// A mapping's entries, with unknown keys and duplicates reported.
    mutating func mapping(_ node: Node, _ path: PlanKeyPath, allowed: [String]) -> [(key: String, value: Node)]? {
        guard case .mapping(let map) = node else {
            fail(path, node, "expected a mapping (key: value lines), found \(describe(node))")
            return nil
        }
        var seen = Set<String>()
        var entries: [(key: String, value: Node)] = []
        for (keyNode, value) in map {
            guard case .scalar(let scalar) = keyNode else {
                fail(path, keyNode, "keys must be plain words")
                continue
            }
            let key = scalar.string
            let here = path.appending(key)
            guard allowed.contains(key) else {
                fail(here, keyNode, "unknown key '\(key.clipped)'" + Self.suggestion(for: key, among: allowed)
                     + " (allowed here: \(allowed.joined(separator: ", ")))")
                continue
            }
            guard seen.insert(key).inserted else {
                fail(here, keyNode, "'\(key)' is given twice")
                continue
            }
            entries.append((key, value))
        }
        return entries
    }

    /// A non-empty string.
    mutating func string(_ node: Node, _ path: PlanKeyPath) -> String? {
        guard case .scalar(let s) = node, !(s.style == .plain && Self.nullWords.contains(s.string)) else {
            fail(path, node, "expected text, found \(describe(node))")
            return nil
        }
        return s.string
    }

    /// An integer in `range`; counts may be written `100k` or `2M`.
    mutating func integer(_ node: Node, _ path: PlanKeyPath, range: ClosedRange<Int>, what: String = "an integer") -> Int? {
        guard case .scalar(let s) = node, s.style == .plain, let v = Quantities.count(from: s.string) else {
            fail(path, node, "expected \(what), found \(describe(node))")
            return nil
        }
        guard range.contains(v) else {
            fail(path, node, "\(v) is out of range: expected \(what) from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return v
    }

    /// A real number in `range`.
    mutating func number(_ node: Node, _ path: PlanKeyPath, range: ClosedRange<Double>) -> Double? {
        guard case .scalar(let s) = node, s.style == .plain, let v = Double(s.string.replacingUnderscores), v.isFinite else {
            fail(path, node, "expected a number, found \(describe(node))")
            return nil
        }
        guard range.contains(v) else {
            fail(path, node, "\(v) is out of range: expected a number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return v
    }

    /// `true` or `false`.
    mutating func flag(_ node: Node, _ path: PlanKeyPath) -> Bool? {
        guard case .scalar(let s) = node, s.style == .plain else {
            fail(path, node, "expected true or false, found \(describe(node))")
            return nil
        }
        switch s.string.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            fail(path, node, "expected true or false, found \(describe(node))")
            return nil
        }
    }

    /// A duration (`500ms`, `2s`; a bare number is seconds), optionally > 0,
    /// at most ``PlanDefaults/maxDurationNs``.
    mutating func duration(_ node: Node, _ path: PlanKeyPath, positive: Bool) -> UInt64? {
        guard case .scalar(let s) = node else {
            fail(path, node, "expected a duration such as 500ms, 2s or 100us, found \(describe(node))")
            return nil
        }
        switch Quantities.boundedNanoseconds(from: s.string) {
        case .failure(.notADuration):
            fail(path, node, "expected a duration such as 500ms, 2s or 100us, found \(describe(node))")
            return nil
        case .failure(.tooLong(let message)):
            fail(path, node, message)
            return nil
        case .success(let v):
            if positive && v == 0 {
                fail(path, node, "must be longer than zero")
                return nil
            }
            return v
        }
    }

    /// A sequence, or a single value standing for a one-element sequence.
    func list(_ node: Node) -> [Node] {
        if case .sequence(let seq) = node { return Array(seq) }
        return [node]
    }

    /// How a node looks, for messages: `the text "4"`, `-2`, `a list`, `nothing`.
    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let s):
            if s.style == .plain && Self.nullWords.contains(s.string) { return "nothing" }
            return s.style == .plain ? "'\(s.string.clipped)'" : "the text \"\(s.string.clipped)\""
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    static let nullWords: Set<String> = ["", "~", "null", "Null", "NULL"]

    /// ", did you mean 'x'?" for a near miss (edit distance up to 2), else "".
    /// A word much longer than every candidate is no near miss of any (the
    /// distance is at least the difference in length), and is not compared:
    /// the comparison costs length × length.
    static func suggestion(for word: String, among candidates: [String]) -> String {
        guard let longest = candidates.map(\.count).max(), word.count <= longest + 2 else { return "" }
        let best = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= Swift.max(1, Swift.min(2, word.count / 3)) else { return "" }
        return "; did you mean '\(best.0)'?"
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions
    /// and swaps of two neighbours each cost 1 ('yeild' is 1 from 'yield').
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = Swift.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = Swift.min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
