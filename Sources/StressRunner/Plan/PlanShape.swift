import StressCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
// libyaml itself, which Yams builds as its `CYaml` target: its event stream
// is what lets the shape of a plan be checked before Yams builds a tree
// (Yams offers no public access to events).
import CYaml

/// The shape of a plan's YAML, checked from libyaml's event stream before the
/// document is composed into a tree.
///
/// Composing is where hostile YAML costs: Yams compares mapping keys as whole
/// trees while composing (an alias of an alias of ... used as a key costs ten
/// times more per level), and every walk of a composed tree walks each alias
/// again (a "billion laughs" tree of 10⁹ nodes from 800 bytes). One pass over
/// the events, in time proportional to the text, finds all of that first:
///
/// - a mapping key that is not a plain scalar (a list, a mapping, an alias):
///   plan keys are words, so that is always a mistake;
/// - a document whose aliases expand it past ``maxExpandedNodes`` values;
/// - every key given twice in one mapping, each with its own key path and
///   the line of its first appearance.
///
/// A syntax error is left to the composer, whose message is the parser's.
enum PlanShape {
    /// The most values (scalars, lists and mappings, counting each alias as
    /// the values it stands for) a plan may expand to: far beyond any real
    /// plan (the shipped ones have a few hundred), far below what takes
    /// noticeable time to walk.
    static let maxExpandedNodes = 1_000_000

    /// The problems of `text`'s shape, in file order; empty when the plan can
    /// be composed safely (or has a syntax error, which the composer reports).
    static func problems(text: String, file: String) -> [PlanProblem] {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return [] }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var walker = Walker(file: file)
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return walker.problems }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return walker.problems }
                if !walker.take(&event) { return walker.problems }
            }
        }
    }

    /// One open list or mapping, as the walk goes through it.
    private struct Open {
        var isMapping: Bool
        var anchor: String?
        /// Values inside so far, aliases expanded (the collection itself included).
        var size = 1
        /// The key path of this collection.
        var path: PlanKeyPath
        /// Mappings: whether the next event is a key, and the keys seen with their lines.
        var expectingKey = true
        var keys: [String: (line: Int, column: Int)] = [:]
        var currentKey: String?
        /// Lists: the index of the next item.
        var index = 0
    }

    private struct Walker {
        let file: String
        var problems: [PlanProblem] = []
        var stack: [Open] = []
        /// Each anchor's expanded size (anchors may be redefined; the latest wins, as in YAML).
        var anchors: [String: Int] = [:]
        var total = 0
        /// Whether an alias has stood for values so far: the limit's message
        /// then blames the aliases, and otherwise the plan's own size.
        var aliasesUsed = false

        init(file: String) { self.file = file }

        /// The key path of the value the next event is.
        private var here: PlanKeyPath {
            guard let top = stack.last else { return .root }
            if top.isMapping {
                // A key belongs to its mapping; a value to its key.
                guard !top.expectingKey, let key = top.currentKey else { return top.path }
                return top.path.appending(key)
            }
            return top.path.appending(top.index)
        }

        /// Takes one event; false to stop the walk (a problem that makes the
        /// rest meaningless, or too costly to go on with).
        mutating func take(_ event: inout yaml_event_t) -> Bool {
            let line = Int(event.start_mark.line) + 1, column = Int(event.start_mark.column) + 1
            switch event.type {
            case YAML_SCALAR_EVENT:
                if isKeyPosition {
                    let text = string(event.data.scalar.value, length: event.data.scalar.length) ?? ""
                    return key(text, line: line, column: column)
                }
                return value(size: 1, anchor: string(event.data.scalar.anchor), line: line, column: column)
            case YAML_ALIAS_EVENT:
                let name = string(event.data.alias.anchor) ?? ""
                if isKeyPosition {
                    fail(line, column, "keys must be plain words, not an alias (*\(name))")
                    return false
                }
                // An unknown alias is the composer's error to report.
                aliasesUsed = true
                return value(size: anchors[name] ?? 1, anchor: nil, line: line, column: column)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                if isKeyPosition {
                    fail(line, column, "keys must be plain words, not a \(isMapping ? "mapping" : "list")")
                    return false
                }
                let anchor = isMapping ? string(event.data.mapping_start.anchor) : string(event.data.sequence_start.anchor)
                stack.append(Open(isMapping: isMapping, anchor: anchor, path: here))
                return true
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let closed = stack.popLast() else { return true }
                return value(size: closed.size, anchor: closed.anchor, line: line, column: column, closing: true)
            default:
                return true
            }
        }

        private var isKeyPosition: Bool { stack.last.map { $0.isMapping && $0.expectingKey } ?? false }

        /// A mapping key: reported when the mapping already has it.
        private mutating func key(_ key: String, line: Int, column: Int) -> Bool {
            let path = stack[stack.count - 1].path
            if let first = stack[stack.count - 1].keys[key] {
                let at = first.line == line ? "line \(first.line), column \(first.column)" : "line \(first.line)"
                problems.append(PlanProblem(file: file, path: path.appending(key), line: line, column: column,
                                            message: "'\(key)' is given twice (first at \(at))"))
            } else {
                stack[stack.count - 1].keys[key] = (line, column)
            }
            stack[stack.count - 1].currentKey = key
            stack[stack.count - 1].expectingKey = false
            stack[stack.count - 1].size += 1
            return count(1, line: line, column: column)
        }

        /// A value of `size` expanded values: added to its parent, recorded
        /// under its anchor, counted against the limit.
        private mutating func value(size: Int, anchor: String?, line: Int, column: Int, closing: Bool = false) -> Bool {
            if let anchor { anchors[anchor] = size }
            if !stack.isEmpty {
                stack[stack.count - 1].size = stack[stack.count - 1].size.addingReportingOverflow(size).partialValue
                if stack[stack.count - 1].isMapping {
                    stack[stack.count - 1].expectingKey = true
                } else {
                    stack[stack.count - 1].index += 1
                }
            }
            // A collection's own values were counted as they came.
            return closing ? true : count(size, line: line, column: column)
        }

        private mutating func count(_ n: Int, line: Int, column: Int) -> Bool {
            let (sum, overflow) = total.addingReportingOverflow(n)
            total = overflow ? .max : sum
            guard total > PlanShape.maxExpandedNodes else { return true }
            if aliasesUsed {
                fail(line, column, "aliases expand the plan past \(PlanShape.maxExpandedNodes) values here (the limit counts "
                     + "every value an alias stands for); a plan never needs that many (write the values out, or use 'defaults' to share settings)")
            } else {
                fail(line, column, "the plan has more than \(PlanShape.maxExpandedNodes) values (lists, mappings and scalars), "
                     + "the most a plan may have; a plan never needs that many (list fewer values, or split it into several plans)")
            }
            return false
        }

        private mutating func fail(_ line: Int, _ column: Int, _ message: String) {
            problems.append(PlanProblem(file: file, path: here, line: line, column: column, message: message))
        }

        private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int? = nil) -> String? {
            guard let pointer else { return nil }
            let count = length ?? strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
            return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
        }
    }
}
