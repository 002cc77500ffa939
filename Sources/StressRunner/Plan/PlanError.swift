import StressCore

/// Where in a plan file something is: `experiments[1].threads[0]`.
package struct PlanKeyPath: Sendable, Equatable, CustomStringConvertible {
    package enum Component: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    package var components: [Component] = []

    /// The top of the document.
    public static let root = PlanKeyPath()

    /// This path followed by `key`.
    public func appending(_ key: String) -> PlanKeyPath {
        var p = self
        p.components.append(.key(key))
        return p
    }

    /// This path followed by `[index]`.
    public func appending(_ index: Int) -> PlanKeyPath {
        var p = self
        p.components.append(.index(index))
        return p
    }

    public var description: String {
        var text = ""
        for c in components {
            switch c {
            case .key(let k): text += text.isEmpty ? k : ".\(k)"
            case .index(let i): text += "[\(i)]"
            }
        }
        return text.isEmpty ? "(top level)" : text
    }
}

/// One thing wrong with a plan, located as precisely as the parser allows.
package struct PlanProblem: Sendable, Equatable, CustomStringConvertible {
    /// The plan file.
    public var file: String
    /// The key path of the offending value.
    public var path: PlanKeyPath
    /// 1-based line and column, when the YAML parser reported them.
    public var line: Int?
    public var column: Int?
    /// What is wrong, and where possible how to fix it.
    public var message: String

    /// `file:line:column: path: message`, the form editors and CI logs link.
    /// Text from the plan (a key, a value, the file name) is escaped
    /// (``Swift/String/terminalSafe``): a newline or an ANSI escape in it can
    /// neither start a line of its own nor move the cursor.
    public var description: String {
        var location = file.terminalSafe
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return "\(location): \(path.description.terminalSafe): \(message.terminalSafe)"
    }
}

/// A plan that cannot be used, with every problem found (not just the first).
package struct PlanError: Error, Sendable, CustomStringConvertible {
    /// The problems, in file order.
    public var problems: [PlanProblem]

    /// The error for `problems`, put in file order: by line and column, and
    /// those the parser could not locate (a problem of the plan as a whole)
    /// after the others, each group in the order it was found.
    public init(problems: [PlanProblem]) {
        self.problems = problems.enumerated().sorted { a, b in
            let ka = (a.element.line ?? Int.max, a.element.column ?? 0, a.offset)
            let kb = (b.element.line ?? Int.max, b.element.column ?? 0, b.offset)
            return ka < kb
        }.map(\.element)
    }

    /// One problem per line.
    public var description: String { problems.map { "error: \($0)" }.joined(separator: "\n") }
}
