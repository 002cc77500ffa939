import Foundation
import Yams
import StressCore

/// Errors from elsewhere: the YAML parser's, located and put in a plan
/// author's words.
extension PlanLoader {
    /// The YAML parser's words for `problem`, except where they name the
    /// parser's own API, which means nothing to a plan's author.
    static func inPlainWords(_ problem: String) -> String {
        if problem.contains("yaml_set_max_nest_level") {
            return "lists and mappings nested more than 1000 levels deep (a plan needs a few)"
        }
        return problem
    }

    /// The plan problem for a YAML parser error, located where the parser
    /// says (a reader error from its byte offset).
    static func syntaxProblem(_ error: YamlError, file: String) -> PlanProblem {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return PlanProblem(file: file, path: .root, line: mark.line, column: mark.column,
                               message: "not valid YAML or JSON: \(inPlainWords(problem))")
        case .reader(let problem, let offset, let value, let yaml):
            // A character the YAML reader refuses (a control character, a NUL,
            // text that is not UTF-8): located from its offset in the text.
            var line: Int?, column: Int?
            if let offset, offset <= yaml.count {
                let before = yaml.prefix(offset)
                line = before.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
                column = before.count - (before.lastIndex(of: "\n").map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
            }
            let character = value >= 0 && value < 0x110000 ? String(format: " (U+%04X)", Int(value)) : ""
            return PlanProblem(file: file, path: .root, line: line, column: column,
                               message: "not valid YAML or JSON: \(problem)\(character)")
        default:
            return PlanProblem(file: file, path: .root, message: "not valid YAML or JSON: \(error)")
        }
    }
}
