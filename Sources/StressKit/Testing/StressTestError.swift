import StressCore
import StressRunner

/// A stress test that cannot run as written: each problem names the builder
/// setting at fault (`strategies[1]`, `parameters["pages"]`, `threads`) and
/// says what is wrong, and the error names the call it was thrown from.
public struct StressTestError: Error, Sendable, CustomStringConvertible {
    /// One thing wrong with the settings.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The builder setting at fault, as written in Swift (`strategies[1]`,
        /// `parameters["pages"]`); empty for the test as a whole.
        public var setting: String
        /// What is wrong, and where possible how to fix it.
        public var message: String

        /// A problem.
        package init(setting: String, _ message: String) {
            self.setting = setting
            self.message = message
        }

        /// `setting: message`.
        public var description: String { setting.isEmpty ? message : "\(setting): \(message)" }
    }

    /// Where the stress test was run from (`CounterTests.swift:42`).
    public var callSite: String
    /// What the test runs (`workload counter`).
    public var subject: String
    /// Every problem found, not just the first.
    public var problems: [Problem]

    /// An error.
    package init(callSite: String, subject: String, problems: [Problem]) {
        self.callSite = callSite
        self.subject = subject
        self.problems = problems
    }

    /// `StressTest of workload counter at CounterTests.swift:42 cannot run:`
    /// and one problem per line.
    public var description: String {
        let head = "StressTest of \(subject) at \(callSite) cannot run:"
        if problems.count == 1 { return "\(head) \(problems[0])" }
        return ([head] + problems.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// Where in a test a stress test is run from: it names the call in messages
/// and, in a child process of the test binary, tells which call takes the
/// trial (``StressTest/Isolation/childProcess(_:)``).
public struct StressTestCallSite: Sendable, Hashable, CustomStringConvertible {
    /// `#fileID` of the call (`StressKitTests/CounterTests.swift`).
    public var fileID: String
    /// The call site's line (1-based).
    public var line: Int
    /// The call site's column (1-based).
    public var column: Int
    /// `#function` at the call (`testCounter()`): what a rerun command
    /// selects the test by when its identity is not known.
    public var function: String

    /// The call site at `fileID`, `line` and `column`, in `function`.
    ///
    /// - Parameters:
    ///   - fileID: The file, as `#fileID` gives it (`MyTests/CounterTests.swift`).
    ///   - line: The line.
    ///   - column: The column.
    ///   - function: The calling function, which names the test in a child process.
    public init(fileID: String, line: Int, column: Int, function: String = "") {
        self.fileID = fileID
        self.line = line
        self.column = column
        self.function = function
    }

    /// `CounterTests.swift:42`.
    public var description: String {
        "\(fileID.split(separator: "/").last.map(String.init) ?? fileID):\(line)"
    }

    /// `StressKitTests/CounterTests.swift:42:9`: unique within a test binary.
    var key: String { "\(fileID):\(line):\(column)" }
}
