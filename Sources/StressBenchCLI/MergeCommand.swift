import ArgumentParser
import Foundation
import StressKit

/// `stressbench merge A.json B.json ... -o OUT.json`.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the results files of the shards of one plan (run --shard i/n) into one.",
        discussion: """
        The files must have the same schema and come from the same plan; a trial that appears \
        twice, or two files that put different trials at one matrix position (the plan \
        changed between the shards), is an error (exit code 2). Trials are written in matrix \
        order. Any gate verdict in the inputs is dropped: compare the merged file with \
        `stressbench compare`.
        """
    )

    @Argument(help: "Results files (JSON from `run --json`).")
    var files: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The merged results file.", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Also write the merged trials as CSV.", valueName: "file"))
    var csv: String?

    @Flag(name: .shortAndLong, help: "Print no \"wrote\" lines.")
    var quiet = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one results file to merge") }
    }

    func run() throws {
        let reports = try files.map { ($0, try ResultsFile.load($0)) }
        let merged: RunReport
        do {
            merged = try RunReport.merge(reports)
        } catch {
            Console.error(error.description)
            throw ExitCode(RunExitCode.usage.rawValue)
        }
        var writer = OutputWriter(quiet: quiet)
        writer.write(output) { try ResultCoding.encoder().encode(merged) }
        writer.write(csv) { Data(CSVReport.render(merged).utf8) }
        print("merged \(files.count) file(s): \(merged.trials.count) trial(s) of plan \(merged.plan)")
        try writer.finish()
    }
}
