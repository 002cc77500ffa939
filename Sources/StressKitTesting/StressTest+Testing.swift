@_exported import StressKit
import Testing
import XCTest

/// `StressTest` in a test target: the running test found for isolation and
/// rerun commands, and a failure recorded at the call, as a Swift Testing
/// issue under `@Test` or an XCTest failure in an `XCTestCase`.
///
/// ```swift
/// import StressKitTesting
///
/// @Test func counterUnderLocks() {
///     StressTest(workload: "counter").strategies("pthread-mutex", "nslock").threads(2, 4).ops(20_000)
///         .isolated()
///         .expectSuccess()
/// }
///
/// final class CounterTests: XCTestCase {
///     func testCounterUnderLocks() {
///         StressTest(workload: "counter").strategies("pthread-mutex").threads(4).ops(20_000)
///             .isolated(in: self)
///             .expectSuccess()
///     }
/// }
/// ```
extension StressTest {
    /// Runs each trial in a child process of the test binary that runs only
    /// the current Swift Testing test. Outside one (in an XCTest method),
    /// running reports that ``isolated(in:)`` is needed instead.
    ///
    /// - Returns: This test, run in child processes.
    public func isolated() -> StressTest {
        guard let test = TestID.currentSwiftTest else {
            return isolationUnavailable("no Swift Testing test is running here to run again in a child process; "
                                        + "in an XCTest method write .isolated(in: self)")
        }
        return isolated(as: test)
    }

    /// Runs each trial in a child process of the test binary that runs only
    /// `testCase`'s current test method.
    ///
    /// - Parameter testCase: The running XCTest case (`self` in a test method).
    /// - Returns: This test, run in child processes.
    public func isolated(in testCase: XCTestCase) -> StressTest { isolated(as: TestID(testCase)) }

    /// Runs the stress test, and records its first failure (the trial, the
    /// first violation or the deadlock or crash cause, the seed, and a
    /// command that reruns it) at this call: an issue under Swift Testing,
    /// an `XCTFail` under XCTest. Invalid settings are recorded the same way.
    /// Returns the report, nil when the settings could not run.
    ///
    /// `testCase` (XCTest) makes the rerun command select exactly this test;
    /// under Swift Testing the running test is found without it.
    ///
    /// - Parameters:
    ///   - testCase: The running XCTest case (`self`); nil under Swift Testing.
    ///   - fileID: The call site's file; leave the default.
    ///   - filePath: The call site's full path, where the failure is recorded; leave the default.
    ///   - line: The call site's line; leave the default.
    ///   - column: The call site's column; leave the default.
    ///   - function: The calling function, which selects the test in a child process; leave the default.
    /// - Returns: The report of every trial; nil when the settings could not run.
    @discardableResult
    public func expectSuccess(
        in testCase: XCTestCase? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column,
        function: String = #function
    ) -> StressTestReport? {
        let site = StressTestCallSite(fileID: fileID, line: Int(line), column: column, function: function)
        let location = RecordLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return location.recording(Result { () throws(StressTestError) in try identified(in: testCase).run(at: site) })
    }

    /// ``expectSuccess(in:fileID:filePath:line:column:function:)`` for an
    /// `async` test: the run waits and works on a thread of its own, so the
    /// test does not hold a thread of Swift's cooperative pool meanwhile
    /// (Swift Testing runs tests in parallel, and trials under actor
    /// strategies need that pool).
    ///
    /// - Parameters:
    ///   - testCase: The running XCTest case (`self`); nil under Swift Testing.
    ///   - fileID: The call site's file; leave the default.
    ///   - filePath: The call site's full path, where the failure is recorded; leave the default.
    ///   - line: The call site's line; leave the default.
    ///   - column: The call site's column; leave the default.
    ///   - function: The calling function, which selects the test in a child process; leave the default.
    /// - Returns: The report of every trial; nil when the settings could not run.
    @discardableResult
    public func expectSuccess(
        in testCase: XCTestCase? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column,
        function: String = #function
    /// - Parameters:
    ///   - testCase: The running XCTest case (`self`); nil under Swift Testing.
    ///   - fileID: The call site's file; leave the default.
    ///   - filePath: The call site's full path, where the failure is recorded; leave the default.
    ///   - line: The call site's line; leave the default.
    ///   - column: The call site's column; leave the default.
    ///   - function: The calling function, which selects the test in a child process; leave the default.
    /// - Returns: The report of every trial; nil when the settings could not run.
    ) async -> StressTestReport? {
        let site = StressTestCallSite(fileID: fileID, line: Int(line), column: column, function: function)
        let location = RecordLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        // Found here, on the test's task, where `Test.current` is set.
        let stressTest = identified(in: testCase)
        do {
            return location.recording(.success(try await stressTest.run(at: site)))
        } catch {
            return location.recording(.failure(error))
        }
    }

    /// This test with the running test as its ``StressTest/test``, when it
    /// has none and one can be found: rerun commands then select exactly it.
    private func identified(in testCase: XCTestCase?) -> StressTest {
        guard test == nil, let found = TestID.currentSwiftTest ?? testCase.map(TestID.init) else { return self }
        return test(found)
    }
}

extension StressTest.TestID {
    /// The Swift Testing test running on this task; nil outside one.
    public static var currentSwiftTest: StressTest.TestID? {
        guard let test = Test.current else { return nil }
        let id = test.id
        return .swiftTesting(moduleName: id.moduleName, nameComponents: id.nameComponents,
                             sourceLocation: id.sourceLocation.map { String(describing: $0) })
    }

    /// The test method `testCase` is running: XCTest names it
    /// `Class.testMethod` on Linux (`-[Class testMethod]` on Apple platforms),
    /// and the class's reflected name carries its module.
    ///
    /// - Parameter testCase: The running XCTest case (`self` in a test method).
    public init(_ testCase: XCTestCase) {
        let name = testCase.name
        var method = name.split(separator: ".").last.map(String.init) ?? name
        if name.hasPrefix("-["), let space = name.lastIndex(of: " ") {
            method = String(name[name.index(after: space)...].dropLast())
        }
        self = .xcTest(className: String(reflecting: type(of: testCase)), method: method)
    }
}

/// Where a failure is recorded, in the form each test library takes.
private struct RecordLocation {
    let fileID: String
    let filePath: StaticString
    let line: UInt
    let column: Int

    /// Records a run's failure, or why it could not run, and passes the
    /// report on.
    func recording(_ run: Result<StressTestReport, StressTestError>) -> StressTestReport? {
        switch run {
        case .success(let report):
            if let failure = report.failure { record(failure.description) }
            return report
        case .failure(let error):
            record(error.description)
            return nil
        }
    }

    /// Records `message` as a failure of the running test: a Swift Testing
    /// issue when a Swift Testing test is running, else an XCTest failure.
    func record(_ message: String) {
        if Test.current != nil {
            Issue.record(Comment(rawValue: message), sourceLocation: SourceLocation(
                fileID: fileID, filePath: String(describing: filePath), line: Int(line), column: column))
        } else {
            XCTFail(message, file: filePath, line: line)
        }
    }
}
