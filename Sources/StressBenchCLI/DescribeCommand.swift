import ArgumentParser
import Foundation
import StressKit

/// `stressbench _describe PLAN` (hidden): how this build would run a plan,
/// as JSON (``BuildDescription``). `stressbench ab` asks each of its two
/// executables for it and runs nothing unless both describe the same trials
/// of the same workloads.
struct DescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: BuildHandshake.describeCommand,
        abstract: "Describe how this build runs a plan: its trials and the shape of their workloads (for `stressbench ab`).",
        discussion: """
        Prints a \(BuildDescription.currentSchema) JSON document: this build's version and \
        configuration, every trial of the plan's matrix, and for every workload, scenario and \
        strategy those trials use, what identifies it apart from its code (parameters, \
        operations with their weights and steps with the access each asks for). Exit code 2 \
        when the plan does not load.
        """,
        shouldDisplay: false
    )

    @Argument(help: "The plan file (YAML or JSON).")
    var plan: String

    @Option(help: ArgumentHelp("Trials per cell for every experiment, overriding the plan.", valueName: "n"))
    var repetitions: Int?

    @Flag(name: .customLong("allow-large"), help: "Accept a plan past the size limits.")
    var allowLarge = false

    @Option(name: .customLong("output-fd"), help: ArgumentHelp("Write the document to this open descriptor instead of standard output.", valueName: "fd"))
    var outputDescriptor: Int32?

    func validate() throws {
        if let repetitions, !(1...100_000).contains(repetitions) {
            throw ValidationError("--repetitions expects a number from 1 to 100000, got \(repetitions)")
        }
    }

    func run() throws {
        let registry = CommandContext.current
        let loaded = try loadPlan(plan, registry: registry, allowLarge: allowLarge)
        var options = RunOptions(repetitions: repetitions)
        options.allowLarge = allowLarge
        let runner = PlanRunner(registry: registry, options: options)
        if let problem = runner.sizeProblem(of: loaded) { throw CommandError.usage(problem) }
        let description = BuildDescription(plan: loaded.name, trials: runner.matrix(of: loaded), registry: registry)
        let data = try ResultCoding.encoder(pretty: outputDescriptor == nil).encode(description) + Data("\n".utf8)
        let handle = outputDescriptor.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } ?? FileHandle.standardOutput
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw CommandError.failure("cannot write the description: \(error.localizedDescription)")
        }
    }
}
