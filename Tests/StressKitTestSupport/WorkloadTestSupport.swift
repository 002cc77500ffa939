import Foundation
import StressKit
import XCTest

/// Helpers for the workload, bug-pattern and example tests.
package enum WorkloadTestSupport {
    /// The package's root directory (this file is Tests/StressKitTestSupport/…).
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file in the package, by its path from the root.
    package static func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

    /// An executable `swift test` built next to the test bundle.
    package static func builtExecutable(_ name: String) -> String {
        URL(fileURLWithPath: TestSupport.stressbenchPath).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Every registered strategy that protects its state and pairs with a
    /// workload without a lock-free form: strategies merged later are covered
    /// without touching the tests.
    package static var synchronizingStrategies: [StrategyDescriptor] {
        StressRegistry.builtIn.defaultStrategies.map(\.descriptor).filter { $0.synchronizes && !$0.lockFree }
    }

    /// Every registered strategy a workload without a lock-free form pairs with,
    /// the unsynchronized control included.
    package static var pairableStrategies: [StrategyDescriptor] {
        StressRegistry.builtIn.defaultStrategies.map(\.descriptor).filter { !$0.lockFree }
    }

    /// Runs `executable` with `arguments`; returns its exit status and output.
    package static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.environment = TestSupport.environmentWithBinariesOnPath
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting, so a full pipe never blocks the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// A nested transaction (a write on a resource from inside a write on the
    /// same resource) ended exactly as the strategy's descriptor says re-entry
    /// does: passed where it re-enters; a deadlock whose report has a worker
    /// holding the resource and waiting for it again where it blocks; a trap
    /// where the primitive traps, with the primitive's own message or, for a
    /// dispatch queue that dies silently, the harness's explanation.
    package static func assertReentry(_ trial: TrialResult, _ strategy: StrategyDescriptor,
                              file: StaticString = #filePath, line: UInt = #line) {
        let what = describe(trial)
        switch strategy.reentry {
        case .reenters:
            XCTAssertEqual(trial.outcome, .passed, what, file: file, line: line)
        case .deadlocks:
            XCTAssertEqual(trial.outcome, .deadlock, what, file: file, line: line)
            XCTAssertFalse(trial.stall?.cycle?.isEmpty ?? true, "a deadlock comes with its wait-for cycle: \(what)", file: file, line: line)
            XCTAssertTrue(trial.stall?.workers.contains {
                $0.phase == "acquiringInner" && $0.resource != nil && $0.resource == $0.innerResource
            } == true, "some worker holds a resource and waits for it again: \(what)", file: file, line: line)
        case .traps(let message):
            XCTAssertEqual(trial.outcome, .crashed, what, file: file, line: line)
            XCTAssertTrue(["SIGILL", "SIGTRAP"].contains(trial.failure?.signal), what, file: file, line: line)
            let tail = trial.failure?.outputTail ?? []
            if let message {
                XCTAssertTrue(tail.contains { $0.contains("Fatal error") && $0.contains(message) },
                              "the trap says '\(message)': \(what)", file: file, line: line)
            } else if strategy.primitive == .queue {
                XCTAssertTrue(trial.failure?.message.contains("dispatch_sync called on queue already owned by current thread") == true,
                              "the record explains libdispatch's silent trap: \(what)", file: file, line: line)
            }
            XCTAssertTrue(tail.contains { $0.contains("nested section") }, "the crash report shows the nested entry: \(what)",
                          file: file, line: line)
        }
    }

    /// One line per trial that did not pass, with its first violations or its
    /// failure, for assertion messages.
    package static func describe(_ trial: TrialResult) -> String {
        var line = "\(trial.trial.id): \(trial.outcome.rawValue)"
        if let first = trial.violations.samples.first { line += " (\(trial.violations.count) violations; first: \(first.summaryLine))" }
        if let failure = trial.failure { line += " (\(failure.message); \(failure.outputTail.suffix(3).joined(separator: " | ")))" }
        if let stall = trial.stall { line += " (\(stall.summary))" }
        return line
    }
}
