import StressCore
import StressRunner

extension StressTest {
    /// Which test of a test binary a stress test runs in: how a child process
    /// of that binary runs that test alone, and how `swift test` selects it
    /// in a rerun command.
    ///
    /// `StressKitTesting` makes one for the running test (Swift Testing's
    /// `Test.current`, or an `XCTestCase`); a runner of its own can make one
    /// with ``xcTest(className:method:)`` or ``swiftTesting(moduleName:nameComponents:sourceLocation:)``.
    public struct TestID: Sendable, Hashable, CustomStringConvertible {
        /// Which library runs the test.
        public enum Library: String, Sendable, Hashable {
            /// XCTest: a test method of an `XCTestCase` subclass.
            case xcTest
            /// Swift Testing: an `@Test` function.
            case swiftTesting
        }

        /// Which library runs it.
        public var library: Library
        /// `Module.Class/method` for XCTest; Swift Testing's test ID
        /// (`Module.Suite/name()/File.swift:12:6`).
        public var identifier: String
        /// What `swift test --filter` selects the test by (a regular
        /// expression that matches it).
        public var filter: String

        /// The XCTest method `method` (`testCounter`) of the class named
        /// `className` with its module (`StressKitTests.CounterTests`, what
        /// `String(reflecting:)` gives for the class).
        ///
        /// - Parameters:
        ///   - className: The test class's name with its module.
        ///   - method: The test method's name.
        /// - Returns: The test's identity.
        public static func xcTest(className: String, method: String) -> TestID {
            let specifier = "\(className)/\(method)"
            return TestID(library: .xcTest, identifier: specifier, filter: specifier)
        }

        /// The Swift Testing test with these parts of its `Test.ID`.
        /// `sourceLocation` is the ID's `File.swift:line:column`, which keeps
        /// two tests of one name apart.
        ///
        /// - Parameters:
        ///   - moduleName: The test's module.
        ///   - nameComponents: The names of its suites and its function, outermost first.
        ///   - sourceLocation: Where it is declared, or nil.
        /// - Returns: The test's identity.
        public static func swiftTesting(moduleName: String, nameComponents: [String], sourceLocation: String?) -> TestID {
            let name = "\(moduleName).\(nameComponents.joined(separator: "/"))"
            // `swift test --filter` is a regular expression matched anywhere in
            // the ID: the name without its argument labels (`counter(threads:)`
            // holds a group) still selects this test and its cases.
            let bare = name.firstIndex(of: "(").map { String(name[..<$0]) } ?? name
            return TestID(library: .swiftTesting, identifier: name + (sourceLocation.map { "/\($0)" } ?? ""), filter: bare)
        }

        /// The arguments that make the test binary run this test alone.
        /// XCTest takes the specifier; Swift Testing a `--filter` regular
        /// expression, here the whole ID escaped and anchored.
        public var childArguments: [String] {
            switch library {
            case .xcTest: [identifier]
            case .swiftTesting: ["--testing-library", "swift-testing", "--filter", "^" + Self.escaped(identifier) + "$"]
            }
        }

        /// `swift test --filter 'StressKitTests.CounterTests/testCounter'`.
        public var swiftTestCommand: String { "swift test --filter \(RerunCommand.quoted(filter))" }

        /// The test's ``identifier``, as messages print it.
        public var description: String { identifier }

        /// `text` with every character a regular expression gives a meaning escaped.
        static func escaped(_ text: String) -> String {
            var out = ""
            for c in text {
                if "\\^$.|?*+()[]{}".contains(c) { out.append("\\") }
                out.append(c)
            }
            return out
        }
    }
}
