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
        twice, or two files that put different trials at one position of the plan's order or record \
        different matrix sizes (the plan changed between the shards), or shards of different \
        splits, is an error (exit code 2). So is a set that does not cover the plan's whole \
        matrix (a shard missing, or a shard's run interrupted or narrowed with --only), unless \
        --allow-partial. Trials are written in the plan's order. Any gate verdict in the inputs is \
        dropped: compare the merged file with `stressbench compare`. No output may name one of \
        the files merged (exit code 2). A shard with no trials (the split left it empty) merges \
        like any other. Shards measured in different \
        environments (CPU, cores, CPU quota, build, Swift) are merged with a warning: the merged \
        file's environment is the first file's, while each trial keeps its own, and `compare` \
        notes every trial's differences from the baseline. The shards of an explored trial \
        (run --explore ... --shard i/n: each explores its part of the schedule space) become one \
        record: schedules, failures and pruning summed, complete only when every shard is there \
        and complete; a shard missing is named in a note, and the merged exploration is then \
        not complete.
        """
    )

    @Argument(help: "Results files (JSON from `run --json`).", completion: .file(extensions: ["json"]))
    var files: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The merged results file.", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("Also write the merged trials as CSV.", valueName: "file"))
    var csv: String?

    @Flag(name: .customLong("allow-partial"), help: "Merge files that do not cover the whole matrix (the merged file then lacks those trials).")
    var allowPartial = false

    @Flag(name: .shortAndLong, help: "Print no \"wrote\" lines.")
    var quiet = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one results file to merge") }
    }

    func run() throws {
        try OutputWriter.check(files: [("--output", output), ("--csv", csv)], directories: [],
                               inputs: files.map { InputFile(role: "an input results file", path: $0) })
        let reports = try files.map { ($0, try ResultsFile.load($0)) }
        let merged: RunReport
        do {
            merged = try RunReport.merge(reports, allowPartial: allowPartial)
        } catch {
            Console.error(error.description)
            throw ExitCode(RunExitCode.usage.rawValue)
        }
        for (file, report) in reports where report.matrixTrials == nil {
            Console.error("note: \(file) does not record the plan's matrix size (written by an older stressbench): completeness not checked")
        }
        for warning in RunReport.environmentWarnings(reports) { Console.error(warning) }
        for note in RunReport.explorationShardNotes(reports) { Console.error(note) }
        var writer = OutputWriter(quiet: quiet)
        writer.write(concurrently: [(output, { @Sendable [merged] out in try ResultCoding.writeResults(merged, to: out) })])
        writer.write(csv) { Data(CSVReport.render(merged).utf8) }
        let of = merged.matrixTrials.map { " of \($0)" } ?? ""
        Console.Stream(toStandardError: [output, csv].contains(where: AtomicFile.isStandardOutput))
            .write("merged \(files.count) file(s): \(merged.trials.count)\(of) trial(s) of plan \(merged.plan.terminalSafe)\n")
        try writer.finish()
    }
}
