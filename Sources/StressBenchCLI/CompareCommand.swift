import ArgumentParser
import Foundation
import StressKit

/// `stressbench compare BASE.json NEW.json`.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare a results file with a baseline, cell by cell, and exit with 4 on a regression.",
        discussion: """
        Cells are matched between the files on workload, parameters, strategy, threads, \
        fuzz profile and allocator (not the experiment's name); a pair measured differently \
        (window, warm-up, load, clock, sampling, fuzz tuning) is `not-comparable` and not \
        compared. For each matched cell, one sample per repetition (by default p50, the median \
        time per operation) on each side gives the ratio of the medians, new/baseline, with a \
        seeded bootstrap confidence interval, and a two-sided Mann-Whitney U test (exact for \
        small samples, ties included) whose p-values are Holm-corrected over the cells. A \
        change smaller than the metric's resolution (clock step or histogram bucket) is \
        `unchanged`. Otherwise a cell is `regressed` when the corrected test is significant \
        and the whole interval is worse than the tolerance, `improved` for the same on the \
        better side, `unchanged` when the interval lies within the tolerance, and \
        `inconclusive` otherwise (too noisy, or fewer than --min-samples repetitions a side). \
        Only `regressed` fails with 4.

        With --plan, the plan's thresholds are checked on NEW too (bounds such as \
        `ops_per_s >= 0.9 * baseline` against BASE) and its `gate` settings are the defaults \
        for the options below.

        Exit codes are those of `run` for NEW with the gate: 0 passed, 1 violations in NEW, \
        2 usage error or unreadable file (or an output that names BASE, NEW or the plan), 3 crashes, deadlocks or timeouts in NEW, 4 regression \
        or failed threshold; 2 > 3 > 1 > 4. Also 2 when no cell of NEW could be compared with \
        BASE, or when cells of BASE are missing from NEW or measured differently (unless \
        --allow-partial); that 2 ranks below 3 and 1: 3 > 1 > 2 > 4.
        """
    )

    @Argument(help: "The baseline results file (JSON from `run --json`).", completion: .file(extensions: ["json"]))
    var baselineFile: String

    @Argument(help: "The new results file.", completion: .file(extensions: ["json"]))
    var newFile: String

    @Option(help: ArgumentHelp("Also check this plan's thresholds, and use its gate settings.", valueName: "plan"))
    var plan: String?

    @OptionGroup(title: "Comparison")
    var gateOptions: GateOptions

    @Option(help: ArgumentHelp("Write NEW with the gate's verdict added to this JSON file.", valueName: "file"))
    var json: String?

    @OptionGroup(title: "More outputs")
    var outputs: ReportOutputs

    @Flag(name: .shortAndLong, help: "Print no \"wrote\" lines.")
    var quiet = false

    func run() throws {
        try outputs.check(plus: [("--json", json)],
                          reading: [InputFile(role: "the baseline", path: baselineFile), InputFile(role: "the new results file", path: newFile)]
                            + (plan.map { [InputFile(role: "the plan file", path: $0)] } ?? []))
        let base = try ResultsFile.load(baselineFile)
        var new = try ResultsFile.load(newFile)
        var policy = GatePolicy()
        if let plan { policy = try loadPlan(plan, registry: CommandContext.current, allowLarge: true).gate }
        policy.comparison = gateOptions.applied(to: policy.comparison)
        new.gate = GateReport.evaluate(new.trials, policy: policy, baseline: base, baselineFile: baselineFile,
                                       environment: new.environment)
        var writer = OutputWriter(quiet: quiet)
        writer.write(concurrently: [(json, { @Sendable [new] out in try ResultCoding.writeResults(new, to: out) })])
        outputs.write(new, into: &writer)
        let code = writer.exitCode(after: new.exitCode)
        let out = Console.Stream(toStandardError: AtomicFile.isStandardOutput(json) || outputs.writesStandardOutput)
        out.write(GateSummary.render(new.gate, planFile: new.planFile, rerun: new.rerun ?? .standard))
        out.write("\ngate: exit code \(code.rawValue) (\(code.meaning))\n")
        writer.printMessages()
        throw ExitCode(code.rawValue)
    }
}
