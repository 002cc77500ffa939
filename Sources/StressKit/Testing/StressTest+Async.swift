import Foundation
import StressCore
import StressRunner

/// The `async` forms, for Swift Testing's `async` tests: the run waits and
/// works on a thread of its own, so the test gives its cooperative thread
/// back while it waits (Swift Testing runs tests in parallel, and a trial
/// whose workers are tasks, under an actor strategy, needs that pool).
extension StressTest {
    /// ``run(fileID:line:column:function:)-3cujl`` without holding a thread of
    /// Swift's cooperative pool while the trials run.
    ///
    /// - Parameters:
    ///   - fileID: The call site's file, which failures and rerun commands name; leave the default.
    ///   - line: The call site's line; leave the default.
    ///   - column: The call site's column; leave the default.
    ///   - function: The calling function, which selects the test in a child process; leave the default.
    /// - Returns: The report of every trial that ran.
    /// - Throws: ``StressTestError`` when the settings cannot run.
    @discardableResult
    public func run(
        fileID: String = #fileID, line: Int = #line, column: Int = #column, function: String = #function
    ) async throws(StressTestError) -> StressTestReport {
        try await run(at: StressTestCallSite(fileID: fileID, line: line, column: column, function: function))
    }

    /// ``run(at:)`` without holding a thread of Swift's cooperative pool
    /// while the trials run.
    ///
    /// - Parameter site: The call site failures and rerun commands name.
    /// - Returns: The report of every trial that ran.
    /// - Throws: ``StressTestError`` when the settings cannot run.
    public func run(at site: StressTestCallSite) async throws(StressTestError) -> StressTestReport {
        try await Self.onAThreadOfItsOwn { () throws(StressTestError) in try self.run(at: site) }.get()
    }

    /// ``requireSuccess(fileID:line:column:function:)-798wd`` without holding a
    /// thread of Swift's cooperative pool while the trials run.
    ///
    /// - Parameters:
    ///   - fileID: The call site's file, which failures and rerun commands name; leave the default.
    ///   - line: The call site's line; leave the default.
    ///   - column: The call site's column; leave the default.
    ///   - function: The calling function, which selects the test in a child process; leave the default.
    /// - Returns: The report of every trial, when all did what they must.
    /// - Throws: ``StressTestFailure`` for the first trial that did not, ``StressTestError`` when the settings cannot run.
    @discardableResult
    public func requireSuccess(
        fileID: String = #fileID, line: Int = #line, column: Int = #column, function: String = #function
    ) async throws -> StressTestReport {
        let report = try await run(fileID: fileID, line: line, column: column, function: function)
        if let failure = report.failure { throw failure }
        return report
    }

    /// `work`'s result, computed on a new thread (with a stack as large as
    /// a main thread's, as trials get elsewhere) while the caller is suspended.
    private static func onAThreadOfItsOwn<T: Sendable, E: Error>(
        _ work: @escaping @Sendable () throws(E) -> T
    ) async -> Result<T, E> {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(E) in try work() })
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
