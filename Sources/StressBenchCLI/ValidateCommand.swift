import ArgumentParser
import StressKit

/// `stressbench validate PLAN...`.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check plan files without running them.",
        discussion: """
        Every value is checked: unknown keys, wrong types, unknown workloads or strategies, \
        out-of-range counts, fuzz pauses that would leave a trial nothing to measure, and the \
        plan's size (at most 100000 trials; more than 1024 threads in a trial or more than 24h \
        of trials only with `allow_large: true` or --allow-large). Each problem is printed as \
        FILE:LINE:COLUMN: KEY.PATH: message, in file order. Warnings that depend on this \
        machine (far more threads than cores, a plan of more than an hour) go to standard \
        error and do not fail validation.
        Exit code 0 when every plan is valid, 2 otherwise.
        """
    )

    @Argument(help: "Plan files (YAML or JSON).", completion: .file(extensions: ["yaml", "yml", "json"]))
    var plans: [String]

    @Flag(name: .customLong("allow-large"), help: "Accept plans past the size limits (more than 1024 threads in a trial, or more than 24h of trials), as `allow_large: true` in a plan does.")
    var allowLarge = false

    func run() throws {
        let loader = PlanLoader(registry: CommandContext.current, allowLarge: allowLarge)
        var failed = false
        for path in plans {
            do {
                let plan = try loader.load(file: path)
                let trials = TrialMatrix.trialCount(plan)
                print("ok: \(path.terminalSafe): \(plan.experiments.count) experiment(s), \(trials) trial(s)")
                for warning in PlanWarnings.warnings(plan, usableCores: EnvironmentInfo.current.usableCores) { Console.error(warning) }
            } catch {
                failed = true
                Console.error(error.description)
            }
        }
        if failed { throw ExitCode(RunExitCode.usage.rawValue) }
    }
}
