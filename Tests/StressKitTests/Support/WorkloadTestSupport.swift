import Foundation
import StressKit
import XCTest

/// Helpers for the workload, bug-pattern and example tests.
enum WorkloadTestSupport {
    /// The package's root directory (this file is Tests/StressKitTests/Support/…).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file in the package, by its path from the root.
    static func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

    /// An executable `swift test` built next to the test bundle.
    static func builtExecutable(_ name: String) -> String {
        URL(fileURLWithPath: TestSupport.stressbenchPath).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Every registered strategy that protects its state and pairs with a
    /// workload without a lock-free form: strategies merged later are covered
    /// without touching the tests.
    static var synchronizingStrategies: [StrategyDescriptor] {
        StressRegistry.builtIn.defaultStrategies.map(\.descriptor).filter { $0.synchronizes && !$0.lockFree }
    }

    /// Every registered strategy a workload without a lock-free form pairs with,
    /// the unsynchronized control included.
    static var pairableStrategies: [StrategyDescriptor] {
        StressRegistry.builtIn.defaultStrategies.map(\.descriptor).filter { !$0.lockFree }
    }

    /// Runs `executable` with `arguments`; returns its exit status and output.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
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

    /// One line per trial that did not pass, with its first violations or its
    /// failure, for assertion messages.
    static func describe(_ trial: TrialResult) -> String {
        var line = "\(trial.trial.id): \(trial.outcome.rawValue)"
        if let first = trial.violations.samples.first { line += " (\(trial.violations.count) violations; first: \(first.summaryLine))" }
        if let failure = trial.failure { line += " (\(failure.message); \(failure.outputTail.suffix(3).joined(separator: " | ")))" }
        if let stall = trial.stall { line += " (\(stall.summary))" }
        return line
    }
}
