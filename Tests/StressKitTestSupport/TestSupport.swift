import Foundation
import StressKit
import StressKitFixtures
import Synchronization
import XCTest

/// Helpers shared by the test files.
package enum TestSupport {
    /// The `stressbench` binary `swift test` built next to the test bundle:
    /// the command line as it ships, without the test fixtures.
    package static var stressbenchPath: String { builtBinary("stressbench") }

    /// `stressbench` with the test fixtures (`_fault`, `_hang-in-round`,
    /// `_stuck-in-round`) registered: what a plan that names one runs in,
    /// and every trial child process the tests start.
    package static var fixturesPath: String { builtBinary("stressbench-fixtures") }

    /// The development tool whose commands the benchmark scripts run.
    package static var devToolPath: String { builtBinary("stressbench-dev") }

    /// The executable `name` that `swift test` built next to the test bundle.
    private static func builtBinary(_ name: String) -> String {
        let dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        return dir.appendingPathComponent(name).path
    }

    /// The built-ins plus the test fixtures: what the tests load and run
    /// plans against in process, and what ``fixturesPath`` knows.
    package static let registry = TestFixtures.registry

    /// This process's environment with the built binaries' directory first on
    /// PATH, as for a user who installed them: rerun commands then start with
    /// the bare name (`stressbench run ...`), which is how the tests paste them.
    package static var environmentWithBinariesOnPath: [String: String] {
        let bin = URL(fileURLWithPath: stressbenchPath).deletingLastPathComponent().path
        let env = ProcessInfo.processInfo.environment
        return env.merging(["PATH": bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")]) { $1 }
    }

    /// Isolation through child processes of the built `stressbench-fixtures`,
    /// which knows every name ``registry`` does.
    package static var childIsolation: TrialIsolation {
        .childProcess(executable: fixturesPath, arguments: [TrialIsolation.trialCommand])
    }

    /// Loads `yaml` against ``registry``, failing the test on a plan error.
    package static func plan(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws -> Plan {
        do {
            return try PlanLoader(registry: registry).load(text: yaml, file: "test.yaml")
        } catch {
            XCTFail("plan did not load: \(error)", file: file, line: line)
            throw error
        }
    }

    /// The problems a plan text has (empty when it loads).
    package static func problems(_ yaml: String, registry: StressRegistry = TestSupport.registry) -> [PlanProblem] {
        do {
            _ = try PlanLoader(registry: registry).load(text: yaml, file: "test.yaml")
            return []
        } catch {
            return error.problems
        }
    }

    /// Runs a plan in this process.
    package static func runInProcess(_ yaml: String) throws -> RunReport {
        try PlanRunner.run(yaml: yaml, file: "test.yaml", registry: registry)
    }

    /// Runs a plan with each trial in a child process of the built binary.
    package static func runIsolated(_ yaml: String) throws -> RunReport {
        try PlanRunner.run(yaml: yaml, file: "test.yaml", registry: registry, options: RunOptions(isolation: childIsolation))
    }

    /// Runs the built `stressbench` (or `executable`: ``fixturesPath`` for a
    /// plan that names a fixture) with `arguments`; returns its exit status
    /// and output. With a `launcher` (`["/usr/bin/taskset", "-c", "0"]`),
    /// that program runs it.
    package static func cli(
        _ arguments: [String], input: String = "", launcher: [String] = [], executable: String = stressbenchPath
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? executable)
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [executable] + arguments
        process.environment = environmentWithBinariesOnPath
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

    /// Runs the built `stressbench` with `arguments` and its standard output
    /// appended to the file at `path`, as a shell's `>> path` does; returns
    /// its exit status and standard error.
    package static func cli(_ arguments: [String], standardOutputAppendedTo path: String) throws -> (status: Int32, stderr: String) {
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: stressbenchPath)
        process.arguments = arguments
        process.standardOutput = handle
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, stderr)
    }

    /// What a `stressbench run` of a plan text left behind.
    package struct CLIRun {
        package var status: Int32
        package var stdout: String
        package var stderr: String
        /// The plan file (its path is in rerun commands).
        package var plan: String
        package var json: String
        package var csv: String
        package var ndjson: String

        /// The `--json` file.
        package func report() throws -> RunReport {
            try ResultCoding.decoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        }

        /// Every line of the `--ndjson` stream, decoded.
        package func streamed() throws -> [TrialResult] {
            try String(contentsOfFile: ndjson, encoding: .utf8).split(separator: "\n")
                .map { try ResultCoding.decoder().decode(TrialResult.self, from: Data($0.utf8)) }
        }

        /// The `--csv` file's rows, keyed by column name.
        package func csvRows() throws -> [[String: String]] {
            let rows = CSV.parse(try String(contentsOfFile: csv, encoding: .utf8))
            guard let header = rows.first else { return [] }
            XCTAssertEqual(header, CSVReport.columns)
            return rows.dropFirst().map { row in
                XCTAssertEqual(row.count, header.count, "\(row)")
                return Dictionary(uniqueKeysWithValues: zip(header, row))
            }
        }
    }

    /// Writes `yaml` to a plan file and runs `stressbench run` (or
    /// `executable`'s) on it with `--json`, `--csv`, `--ndjson` and `-q`,
    /// plus `options`.
    package static func cliRun(_ yaml: String, options: [String] = [], executable: String = stressbenchPath) throws -> CLIRun {
        let dir = try temporaryDirectory()
        let plan = dir.appendingPathComponent("plan.yaml").path
        try yaml.write(toFile: plan, atomically: true, encoding: .utf8)
        let file = { dir.appendingPathComponent($0).path }
        let r = try cli(["run", plan, "--json", file("r.json"), "--csv", file("r.csv"), "--ndjson", file("r.ndjson"), "-q"] + options,
                        executable: executable)
        return CLIRun(status: r.status, stdout: r.stdout, stderr: r.stderr, plan: plan,
                      json: file("r.json"), csv: file("r.csv"), ndjson: file("r.ndjson"))
    }

    /// Runs the shell `command` on a pseudo-terminal (util-linux `script`);
    /// returns its exit status and what the terminal showed. Skips the test
    /// where `script` is missing.
    package static func onTerminal(_ command: String) throws -> (status: Int32, screen: String) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("needs util-linux `script` for a pseudo-terminal")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let screen = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, screen)
    }

    /// A fresh temporary directory, removed with everything in it when the
    /// test process exits (see ``TemporaryDirectories``).
    package static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stressbench-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryDirectories.removeAtExit(url)
        return url
    }
}

/// The directories the tests made, removed when the test process exits,
/// unless `STRESSBENCH_KEEP_TEST_DIRS=1` is set (to read a failing test's
/// plans and reports after the run).
///
/// Why at exit and not at each test's end: the directories are made by
/// helpers that know no test case, and a test's files stay there while the
/// run lasts. Without this, every run of the suite left about 200
/// directories (some 40 MB each, a large plan's reports) in the temporary
/// directory: 1.4 GB over a day of work. A process that ends with `_exit`
/// (a test's child) removes nothing; its parent's directories go with the
/// parent.
package enum TemporaryDirectories {
    private static let made = Mutex<[URL]>([])
    /// Registers the exit handler once, on the first directory.
    private static let handlerRegistered: Bool = {
        atexit { TemporaryDirectories.removeAll() }
        return true
    }()

    static func removeAtExit(_ url: URL) {
        _ = handlerRegistered
        made.withLock { $0.append(url) }
    }

    private static func removeAll() {
        guard ProcessInfo.processInfo.environment["STRESSBENCH_KEEP_TEST_DIRS"] != "1" else { return }
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}

/// RFC 4180 CSV, as `CSVReport` writes it.
package enum CSV {
    /// The rows of `text`, each a list of cells (quotes removed).
    package static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], cell = ""
        var quoted = false
        var chars = text.makeIterator()
        while let c = chars.next() {
            if quoted {
                if c == "\"" {
                    // A doubled quote is a quote; a single one ends the quoted part.
                    if let next = chars.next() {
                        if next == "\"" { cell.append("\"") } else {
                            quoted = false
                            if next == "," { row.append(cell); cell = "" } else if next == "\n" { row.append(cell); rows.append(row); row = []; cell = "" } else { cell.append(next) }
                        }
                    } else { quoted = false }
                } else { cell.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(cell); cell = ""
            } else if c == "\n" {
                row.append(cell); rows.append(row); row = []; cell = ""
            } else {
                cell.append(c)
            }
        }
        if !cell.isEmpty || !row.isEmpty { row.append(cell); rows.append(row) }
        return rows
    }
}

/// The process table, read from /proc (Linux).
package enum ProcessTable {
    /// The processes whose parent is `parent`.
    package static func children(of parent: pid_t) -> [pid_t] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        return pids.filter { status($0)?.parent == parent }
    }

    /// Whether `pid` is running (a zombie waiting to be reaped is not).
    package static func isAlive(_ pid: pid_t) -> Bool {
        guard let s = status(pid) else { return false }
        return s.state != "Z" && s.state != "X"
    }

    /// The state letter and parent of `pid`, from /proc/PID/stat.
    private static func status(_ pid: pid_t) -> (state: Character, parent: pid_t)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": " S ppid ..."; comm may itself hold spaces and parentheses.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
        return (state, parent)
    }
}
