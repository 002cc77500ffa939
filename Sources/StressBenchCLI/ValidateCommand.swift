import ArgumentParser
import StressKit

/// `stressbench validate PLAN...`.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check plan files without running them.",
        discussion: """
        Every value is checked: unknown keys, wrong types, unknown workloads or strategies, \
        out-of-range counts. Each problem is printed as FILE:LINE:COLUMN: KEY.PATH: message. \
        Exit code 0 when every plan is valid, 2 otherwise.
        """
    )

    @Argument(help: "Plan files (YAML or JSON).")
    var plans: [String]

    func run() throws {
        let loader = PlanLoader(registry: CommandContext.current)
        var failed = false
        for path in plans {
            do {
                let plan = try loader.load(file: path)
                let trials = TrialMatrix.expand(plan).count
                print("ok: \(path): \(plan.experiments.count) experiment(s), \(trials) trial(s)")
            } catch {
                failed = true
                Console.error(error.description)
            }
        }
        if failed { throw ExitCode(RunExitCode.usage.rawValue) }
    }
}
