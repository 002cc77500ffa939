import ArgumentParser
import Foundation
import StressKit
import Synchronization

/// The `stressbench` command line, reusable by a team's own executable:
///
/// ```swift
/// import StressBenchCLI
/// import StressKit
///
/// var registry = StressRegistry.builtIn
/// registry.register(workload: MyWorkload.self)
/// StressBenchMain.main(registry: registry)
/// ```
///
/// Every trial then runs in a child process of that executable, which knows the
/// same registrations.
public enum StressBenchMain {
    /// Parses the process's arguments, runs the command, and exits with the
    /// documented code (0 passed, 1 violations, 2 usage or plan error, 3 crash or
    /// timeout, 4 performance regression).
    ///
    /// - Parameters:
    ///   - registry: The workloads, scenarios and strategies the commands know (a team's own registered on top of the built-ins).
    ///   - arguments: The arguments without the executable's name; nil for the process's own.
    /// - Returns: Never: it exits the process.
    public static func main(registry: StressRegistry = .builtIn, arguments: [String]? = nil) -> Never {
        CommandContext.registry.withLock { $0 = registry }
        if let argv0 = CommandLine.arguments.first {
            let invoked = RerunCommand.invocation(argv0: argv0, searchPath: ProcessInfo.processInfo.environment["PATH"])
            CommandContext.name.withLock { $0 = invoked }
        }
        let args = arguments ?? Array(CommandLine.arguments.dropFirst())
        // The child side of process isolation skips argument parsing entirely.
        if args.first == TrialIsolation.trialCommand { TrialChild.main(registry: registry) }
        do {
            var command = try StressBenchCommand.parseAsRoot(args)
            try command.run()
            exit(0)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            let code = StressBenchCommand.exitCode(for: error)
            if code == .success {
                print(StressBenchCommand.fullMessage(for: error))
                exit(0)
            }
            fflush(nil)  // what went to standard output first stays first in a log holding both
            FileHandle.standardError.write(Data((StressBenchCommand.fullMessage(for: error) + "\n").utf8))
            exit(RunExitCode.usage.rawValue)
        }
    }
}

/// The registry the commands use and the name the executable was invoked by
/// (what rerun commands start with), set once by ``StressBenchMain/main(registry:arguments:)``.
enum CommandContext {
    static let registry = Mutex(StressRegistry.builtIn)
    static var current: StressRegistry { registry.withLock { $0 } }
    static let name = Mutex<(executable: String, launcher: [String]?)>(("stressbench", nil))
    static var executableName: String { name.withLock { $0.executable } }
    static var launcher: [String]? { name.withLock { $0.launcher } }
}

/// `stressbench`: the root command.
struct StressBenchCommand: ParsableCommand {
    /// The command as the user ran it (`swift run -c release stressbench`,
    /// `.build/release/stressbench`, or `stressbench` when it is on PATH), so
    /// the help's examples work when pasted into the same shell.
    static var invoked: String {
        ((CommandContext.launcher ?? []) + [CommandContext.executableName]).map(RerunCommand.quoted).joined(separator: " ")
    }

    // Computed, not stored: the examples name the command as it was invoked,
    // which is known only once `main` has read argv[0].
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "stressbench",
        abstract: "Stress-test Swift synchronization: find races, deadlocks and what each strategy costs.",
        discussion: """
        A plan file (YAML or JSON) names experiments: a workload with parameters, the \
        synchronization strategies to put it under, thread counts, and how long to run. \
        stressbench expands it into trials, runs each trial in its own child process, \
        checks the workload's invariants, and reports throughput, latency percentiles \
        and violations.

        Quick start (the command as you ran it, so each line pastes as is): list the \
        workloads and strategies, check a plan, run it and write its results as JSON.
          \(invoked) list
          \(invoked) validate Plans/quickstart.yaml
          \(invoked) run Plans/quickstart.yaml --json results.json

        Exit codes:
          0  every trial passed, or failed the way its plan's `expect` says
          1  an invariant was violated, or a trial the plan expects to fail passed
             (and nothing crashed or timed out unexpectedly)
          2  usage or plan error; nothing ran (also: an output that cannot be written or
             that names an input, such as the plan; a baseline the run cannot be compared with)
          3  a trial crashed, deadlocked, hung, timed out, or its result could not be read
          4  performance regression: a failed threshold, or a regression vs --baseline
          130/143  interrupted by SIGINT/SIGTERM, also while the files are written
                   (finished trials are still written)
        When several apply: 2 > 3 > 1 > 4 (nothing ran, then incomplete results, then
        correctness, then performance); a baseline that cannot be compared is a 2 that
        ranks with the gate: 3 > 1 > 2 > 4.
        """,
        version: "stressbench \(StressKitVersion.current)",
        subcommands: [RunCommand.self, CompareCommand.self, ABCommand.self, MergeCommand.self, ReplayCommand.self, ValidateCommand.self, ListCommand.self, DescribeCommand.self]
    ) }
}
