import ArgumentParser
import Foundation
import StressKit

/// `stressbench ab OLD-EXECUTABLE NEW-EXECUTABLE PLAN`.
struct ABCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ab",
        abstract: "Compare two builds side by side, in pairs of trials, and exit with 4 on a regression.",
        discussion: """
        The gate for small changes on noisy machines. OLD and NEW are two builds of a \
        stressbench-compatible executable: `stressbench` itself, or a team's own executable \
        that registers its workloads and calls StressBenchMain.main, built once from the main \
        branch and once from the pull request (with the same configuration, -c release).

        Same code on both sides: first each build describes how it would run PLAN (the hidden \
        `_describe` command): its trials, and for each workload, scenario and strategy they use \
        its parameters, operations and steps. Unless both describe the same trials of the same \
        workloads, nothing runs and the exit code is 2, with the differences listed. What may \
        differ is the code inside the steps and the strategies: what the comparison measures.

        Interleaving: every trial of the plan runs twice, once in a child process of each build, \
        back to back (a pair), started the same way (same spec and seed, same environment and CPU \
        affinity, same timeout). Pairs run repetition first (every cell's first pair, then every \
        cell's second, ...), and which build goes first alternates from one repetition to the \
        next (ABBAAB...), so a machine whose speed drifts slows both sides of a pair alike.

        Paired statistics, per cell: each pair gives the ratio new/old of --metric, by default \
        worker_cpu_ns_per_op (the worker threads' own CPU clocks over the measured window / \
        operations completed; exact, and blind to the harness's other threads) or ns_per_op \
        (wall time × workers / operations): counted, not read off a \
        histogram, so they resolve a fraction of a nanosecond where a 30 ns operation's p50 \
        moves in whole clock steps. CPU time is the default because a shared runner takes the \
        CPU away from a trial for a varying share of its window, which wall time counts; it \
        leaves out time a worker is parked waiting for a lock, so for contended cells of \
        blocking locks compare with --metric ns_per_op too. The cell's ratio is the median of its pairs' ratios, with a \
        seeded (deterministic) percentile-bootstrap interval over the pairs; a two-sided \
        Wilcoxon signed-rank test (or --test sign) on the pairs' log-ratios gives a p-value, \
        Holm-corrected over the cells. Verdicts are those of `compare`: `regressed` when the \
        corrected p is below 1 − confidence and the whole interval is worse than --tolerance, \
        `improved` the same on the better side, `unchanged` when the interval lies within the \
        tolerance, `inconclusive` otherwise (or with fewer than --min-pairs complete pairs; a \
        pair is complete when both of its trials passed), `not-comparable` when the builds \
        measured a cell differently (the clock `auto` picked, say). The plan's `gate` key does \
        not apply: its tolerance is sized for baselines from another time and machine.

        Example (docs/paired-gate.md has a CI workflow):
          git worktree add /tmp/main origin/main
          swift build -c release --package-path /tmp/main && swift build -c release
          old=/tmp/main/.build/release/my-bench new=.build/release/my-bench
          $new ab $old $new /tmp/main/Plans/locks.yaml --json ab.json --junit ab.xml

        Exit codes, as `compare`: 0 passed, 1 an invariant violated in a trial of either build, \
        2 usage error (a missing or non-executable file, an executable that is not a \
        stressbench, a plan either build cannot load, builds that run the plan differently, an \
        output that cannot be written or that names the plan or a build; or cells measured differently), 3 a crash, deadlock, \
        hang or timeout in either build, 4 a regressed cell; 3 > 1 > 2 > 4 once trials ran. \
        130/143 when interrupted (what finished is still judged and written).
        """
    )

    @Argument(help: ArgumentHelp("The old build (A): an executable path.", valueName: "old-executable"))
    var oldExecutable: String

    @Argument(help: ArgumentHelp("The new build (B): an executable path.", valueName: "new-executable"))
    var newExecutable: String

    @Argument(help: "The plan file (YAML or JSON); both builds load it.")
    var plan: String

    @Option(help: ArgumentHelp("Pairs of trials per cell (each pair: one trial of each build). Default: 50, what a 5% change of a 30 ns operation needs on a shared 2-core machine (docs/paired-gate.md); the test alone would settle for 7 to 11.", valueName: "n"))
    var pairs: Int?

    @OptionGroup(title: "Comparison")
    var options: PairedOptions

    @Option(help: ArgumentHelp("Run only trials with this id, or whose id starts with it followed by '/' (repeatable): e.g. 'bank', 'bank/mutex/t4'.", valueName: "id"))
    var only: [String] = []

    @Option(help: ArgumentHelp("Write the verdicts and every trial record of both builds to this JSON file ('-' for standard output).", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Write a Markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY).", valueName: "file"))
    var markdown: String?

    @Option(help: ArgumentHelp("Write JUnit XML to this file: one test case per cell (a regression fails it) and per trial of each build.", valueName: "file"))
    var junit: String?

    @Flag(name: .customLong("fail-fast"), help: "Stop after the first pair in which a trial does not pass.")
    var failFast = false

    @Flag(name: .customLong("allow-large"), help: "Accept a plan past the size limits, as `run --allow-large` does.")
    var allowLarge = false

    @Flag(name: .shortAndLong, help: "Print no progress display and no \"wrote\" lines.")
    var quiet = false

    func validate() throws {
        if let pairs, !(1...10_000).contains(pairs) { throw ValidationError("--pairs expects a number from 1 to 10000, got \(pairs)") }
    }

    func run() throws {
        let outputs: [(option: String, path: String?)] = [("--json", json), ("--markdown", markdown), ("--junit", junit)]
        for problem in [BuildHandshake.problem(withExecutable: oldExecutable), BuildHandshake.problem(withExecutable: newExecutable)] {
            if let problem { throw CommandError.usage("\(problem); nothing was run") }
        }
        guard FileManager.default.isReadableFile(atPath: plan) else {
            throw CommandError.usage("cannot read plan file \(plan.terminalSafe); nothing was run")
        }
        try OutputWriter.check(files: outputs, directories: [], inputs: [
            InputFile(role: "the plan file", path: plan), InputFile(role: "the old build", path: oldExecutable),
            InputFile(role: "the new build", path: newExecutable), .runningExecutable,
        ])
        let settings = try options.settings()
        let (old, new, trials) = try describeBoth(settings: settings)
        let pairsPerCell = trials.map(\.repetition).max().map { $0 + 1 } ?? 0
        let cells = Set(trials.map(CellKey.init)).count
        if !quiet {
            let seconds = trials.map(TrialDurationEstimate.seconds).reduce(0, +) * 2
            Console.error("ab: \(trials.count) pair(s) of trials (\(cells) cell(s) × \(pairsPerCell) pairs), about \(ProgressDisplay.clock(seconds))")
        }
        let runner = PairedRunner(oldExecutable: oldExecutable, newExecutable: newExecutable, registry: CommandContext.current,
                                  pairs: pairsPerCell, handleInterrupts: true, failFast: failFast)
        let progress = ProgressDisplay(trials: PairedRunner.schedule(trials).flatMap { [$0, $0] }, quiet: quiet)
        let started = Date()
        let output = runner.run(trials, planFile: plan) { pair, total, spec, side, result in
            // Two steps of the display per pair: the first build's trial, then the other's.
            let first = (spec.repetition % 2 == 0) == (side == "old")
            progress.update(index: 2 * pair + (first ? 0 : 1), total: 2 * total, spec: spec, result: result)
        }
        progress.finish()
        let verdicts = PairedComparer.compare(old: output.old, new: output.new, orderOldFirst: output.oldFirst, settings: settings)
        let report = PairedReport(
            plan: old.description.plan, planFile: plan, startedAt: started, finishedAt: Date(),
            old: PairedBuild(executable: oldExecutable, description: old.description),
            new: PairedBuild(executable: newExecutable, description: new.description),
            buildNotes: old.notes, settings: settings, pairsPerCell: pairsPerCell, stop: output.stop,
            cells: verdicts, oldTrials: output.old, newTrials: output.new)
        var writer = OutputWriter(quiet: quiet)
        let name = CommandContext.executableName
        writer.write(json) { try ResultCoding.encoder().encode(report) }
        writer.write(markdown) { Data(PairedReportText.markdown(report, executable: name).utf8) }
        writer.write(junit) { Data(PairedReportText.junit(report, executable: name).utf8) }
        let code = writer.exitCode(after: report.exitCode, interrupted: report.stop?.reason == .signal)
        let out = Console.Stream(toStandardError: outputs.contains { AtomicFile.isStandardOutput($0.path) })
        out.write(PairedReportText.summary(report, executable: name))
        out.write("\nab: exit code \(code.rawValue) (\(code.meaning))\n")
        writer.printMessages()
        throw ExitCode(code.rawValue)
    }

    /// Both builds' descriptions of the plan with the pairs this comparison
    /// runs, checked against each other; and the trials to run (--only applied).
    private func describeBoth(settings: PairedSettings) throws -> (old: Described, new: Described, trials: [TrialSpec]) {
        func describe(_ executable: String, _ repetitions: Int?) throws -> BuildDescription {
            do {
                return try BuildHandshake.describe(executable: executable, planFile: plan, repetitions: repetitions, allowLarge: allowLarge)
            } catch {
                throw CommandError.usage("\(error.description)\nnothing was run")
            }
        }
        var count = pairs
        if count == nil {
            // The default depends on how many cells the comparison covers.
            let cells = Set(select(try describe(oldExecutable, 1).trials).map(CellKey.init)).count
            count = settings.defaultPairs(forCells: cells)
        }
        let old = try describe(oldExecutable, count), new = try describe(newExecutable, count)
        let comparison = BuildComparison(old: old, new: new)
        guard comparison.comparable else {
            throw CommandError.usage("the two builds do not run \(plan.terminalSafe) the same way, so their trials cannot be paired:\n"
                                     + comparison.blocking.map { "  - \($0)" }.joined(separator: "\n") + "\nnothing was run")
        }
        if !quiet { for note in comparison.notes { Console.error("note: \(note)") } }
        let trials = select(old.trials)
        guard !trials.isEmpty else {
            let ids = old.trials.prefix(5).map(\.id).joined(separator: ", ")
            throw CommandError.usage("--only matched no trial; ids look like: \(ids); nothing was run")
        }
        return (Described(description: old, notes: comparison.notes), Described(description: new, notes: comparison.notes), trials)
    }

    /// A build's description and what the comparison of the two noted.
    private struct Described {
        var description: BuildDescription
        var notes: [String]
    }

    private func select(_ trials: [TrialSpec]) -> [TrialSpec] {
        only.isEmpty ? trials : trials.filter { t in only.contains { t.id == $0 || t.id.hasPrefix($0 + "/") } }
    }
}

/// The settings of a paired comparison on the command line.
struct PairedOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A cell regresses only when its whole interval for the median ratio is worse than this (default 2%).", valueName: "fraction"))
    var tolerance: String?

    @Option(help: ArgumentHelp("Confidence of the bootstrap interval; the test's level is 1 − this (default 95%).", valueName: "fraction"))
    var confidence: String?

    @Option(help: ArgumentHelp("The figure each pair's ratio is of: worker_cpu_ns_per_op (default: the worker threads' own CPU time per operation over the measured window; the process's for task workers), cpu_ns_per_op (the whole trial process's), ns_per_op (wall time per operation per worker), or a histogram figure as in `compare` (p50, p99, ops_per_s, ...).", valueName: "metric"))
    var metric: String?

    @Option(help: ArgumentHelp("The test on the pairs' log-ratios: wilcoxon (signed-rank, the default) or sign.", valueName: "test"))
    var test: String?

    @Option(name: .customLong("min-pairs"), help: ArgumentHelp("Complete pairs a cell needs for a verdict other than inconclusive (default 6, the fewest with which a test can reach p < 0.05).", valueName: "n"))
    var minPairs: Int?

    func validate() throws { _ = try settings() }

    /// The settings these options give.
    func settings() throws -> PairedSettings {
        var s = PairedSettings()
        if let tolerance {
            guard let t = PlanLoader.fraction(from: tolerance), (0...0.99).contains(t) else {
                throw ValidationError("--tolerance expects a fraction such as 2% or 0.02 (below 100%), got '\(tolerance.terminalSafe)'")
            }
            s.tolerance = t
        }
        if let confidence {
            guard let c = PlanLoader.fraction(from: confidence), (0.5...0.999).contains(c) else {
                throw ValidationError("--confidence expects a fraction such as 95% or 0.95 (from 50% to 99.9%), got '\(confidence.terminalSafe)'")
            }
            s.confidence = c
        }
        if let metric {
            guard let m = PairedMetric(spelling: metric) else {
                throw ValidationError("--metric expects one of \(PairedMetric.allCases.map(\.rawValue).joined(separator: ", ")), got '\(metric.terminalSafe)'")
            }
            s.metric = m
        }
        if let test {
            guard let t = PairedTestKind(rawValue: test) else {
                throw ValidationError("--test expects wilcoxon or sign, got '\(test.terminalSafe)'")
            }
            s.test = t
        }
        if let minPairs {
            guard minPairs >= 1 else { throw ValidationError("--min-pairs must be at least 1") }
            s.minimumPairs = minPairs
        }
        return s
    }
}
