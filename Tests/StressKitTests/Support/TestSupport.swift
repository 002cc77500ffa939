import Foundation
import StressKit
import XCTest

/// Helpers shared by the test files.
enum TestSupport {
    /// The `stressbench` binary `swift test` built next to the test bundle.
    static var stressbenchPath: String {
        let dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return dir.appendingPathComponent("stressbench").path
    }

    /// Isolation through child processes of the built `stressbench`.
    static var childIsolation: TrialIsolation {
        .childProcess(executable: stressbenchPath, arguments: [TrialIsolation.trialCommand])
    }

    /// Loads `yaml` against the built-in registry, failing the test on a plan error.
    static func plan(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws -> Plan {
        do {
            return try PlanLoader(registry: .builtIn).load(text: yaml, file: "test.yaml")
        } catch {
            XCTFail("plan did not load: \(error)", file: file, line: line)
            throw error
        }
    }

    /// The problems a plan text has (empty when it loads).
    static func problems(_ yaml: String, registry: StressRegistry = .builtIn) -> [PlanProblem] {
        do {
            _ = try PlanLoader(registry: registry).load(text: yaml, file: "test.yaml")
            return []
        } catch {
            return error.problems
        }
    }

    /// Runs a plan in this process.
    static func runInProcess(_ yaml: String) throws -> RunReport {
        try PlanRunner.run(yaml: yaml, file: "test.yaml", registry: .builtIn)
    }

    /// Runs a plan with each trial in a child process of the built binary.
    static func runIsolated(_ yaml: String) throws -> RunReport {
        try PlanRunner.run(yaml: yaml, file: "test.yaml", registry: .builtIn, options: RunOptions(isolation: childIsolation))
    }

    /// Runs the built `stressbench` with `arguments`; returns its exit status and output.
    static func cli(_ arguments: [String], input: String = "") throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: stressbenchPath)
        process.arguments = arguments
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

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stressbench-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
