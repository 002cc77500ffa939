import Foundation
import StressCore

/// Where each trial runs.
public enum TrialIsolation: Sendable {
    /// In the calling process: fast to debug under a debugger, but a trap ends the
    /// whole run, a deadlock or hang found by the watchdog ends it too, and
    /// trial timeouts do not apply.
    case inProcess
    /// In a child process of `executable`, started as `executable arguments...`,
    /// which must read a ``TrialSpec`` from standard input and answer with its
    /// result as the `stressbench` binary's hidden `_trial` command does.
    case childProcess(executable: String, arguments: [String])

    /// The hidden subcommand a stressbench binary runs one trial with.
    public static let trialCommand = "_trial"

    /// Child processes of this very binary (what `stressbench run` uses).
    public static var currentExecutable: TrialIsolation {
        .childProcess(executable: currentExecutablePath, arguments: [trialCommand])
    }

    /// The path of the running binary.
    public static var currentExecutablePath: String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}
