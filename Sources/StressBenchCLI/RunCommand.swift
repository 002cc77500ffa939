import ArgumentParser
import Foundation
import Synchronization
import StressKit

/// `stressbench run PLAN`.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a plan and report throughput, latency and invariant violations.",
        discussion: """
        Each trial (workload × strategy × threads × repetition) runs in a child process, \
        so a trap in one trial is recorded as `crashed` and the run goes on; a stuck trial \
        is reported by its watchdog as `deadlock` or `hang` (below) and ended, and one that \
        outlives its timeout all the same is killed and recorded as `timeout`. Results print as a table; --json and --csv also write them to files \
        (written atomically: a reader never sees half a file). No output may name a file the \
        run reads (the plan, the baseline): that is a usage error before anything runs. \
        /dev/stdout, /dev/stderr and /dev/fd/N are written through the stream itself.

        A watchdog in each trial reports `deadlock` (every stuck worker waits on another; \
        the report shows where each waits and the wait-for cycle) or `hang` (a worker \
        runs but completes nothing) when no operation completes for --deadlock-after, \
        whatever the workers wait in (on Linux a lock the harness does not see, found \
        blocked in the kernel, too). Only a worker the OS has not run while another \
        thread could still run gets longer: up to 10 × --deadlock-after (at least 2s), \
        and never later than 1s before the trial timeout. So --deadlock-after must be \
        shorter than the timeout by that second (a quarter of a timeout under 4s), and \
        longer than the fuzz profile's longest pause (5ms for chaos).

        Ctrl-C (SIGINT) or SIGTERM stops the run after ending the current trial and writes \
        the files with what finished (marked "interrupted"; the trials not run are recorded \
        as skipped); a signal while the files are written still gives 130 or 143. A second \
        Ctrl-C exits at once.

        The gate: the plan's `thresholds` are checked per cell (all repetitions of one \
        experiment × strategy × threads), and with --baseline every cell is compared with the \
        same cell of an earlier results file (median ratio with a bootstrap interval and a \
        Mann-Whitney U test, Holm-corrected over the cells; classified improved, unchanged, \
        regressed, inconclusive or not-comparable; see `stressbench help compare`). A failed \
        threshold or a regressed cell gives exit code 4; a baseline with no cell in common \
        with the run, or whose cells the run lacks (unless --allow-partial), gives 2; a run \
        narrowed with --only (a printed rerun of one cell) is compared with the same cells \
        of the baseline. With \
        --baseline, or for a plan with a `gate` key, experiments that do not set repetitions \
        get as many as the comparison needs; a plan with a `gate` key or a baseline-relative \
        threshold also runs repetition first (every cell's r0, then every r1, ...) unless it \
        sets `order`. --shard i/n runs one deterministic slice of the \
        matrix (whole cells, balanced by expected duration); a slice the split leaves empty \
        writes results files with no trials and exits 0; `stressbench merge` puts the \
        slices' results files back together. With --explore (or when every trial of the \
        plan explores by its `explore` key), --shard i/n splits each trial's schedule \
        space instead: every machine runs every selected trial and explores share i of \
        its schedules, and merge sums the shares into one record per trial.

        A failed controlled trial's schedule is shrunk (for up to 5s, the plan's `shrink`; \
        --shrink-seconds N, --no-shrink) before the report draws it. --explore \
        preemptions=K runs each selected trial as a bounded exhaustive exploration: every \
        schedule with at most K preemptions, or the first that fails (docs/running.md, \
        "Exploring schedules"). A free-running failure that a controlled trial \
        could show (a violation, deadlock or hang of thread workers) is printed with the \
        command that hunts for it under control; --hunt SECONDS (or the plan's `hunt`) runs \
        that hunt after the run, for up to SECONDS per failure, and draws the trace it finds \
        (docs/traces.md, "A free-running failure, explained"); --hunt 0 turns the plan's off.

        On a terminal a status line shows the trial, the time elapsed and an estimate of the \
        time left; when standard error is not a terminal, and with --quiet, there is none.

        Exit codes: 0 passed (a trial that failed the way the plan's `expect` says counts \
        as passing), 1 violations (or a trial expected to fail that passed), 2 usage or \
        plan error, 3 crash, deadlock, hang or timeout, or nothing checked (every trial skipped, or a trial \
        the plan expects to fail skipped, for lack of jemalloc or the interposer; --allow-skipped accepts it), 4 performance regression (threshold or baseline); when several apply \
        2 > 3 > 1 > 4, except that a baseline that cannot be compared (2) ranks below 3 and 1. \
        130 (SIGINT) or 143 (SIGTERM) when interrupted, whatever else happened.
        """
    )

    @Argument(help: "The plan file (YAML or JSON).", completion: .file(extensions: ["yaml", "yml", "json"]))
    var plan: String

    @OptionGroup
    var overrides: TrialOverrides

    @Option(help: ArgumentHelp("Write every result record to this JSON file.", valueName: "file"), completion: .file(extensions: ["json"]))
    var json: String?

    @Option(help: ArgumentHelp("Write one CSV row per trial to this file.", valueName: "file"), completion: .file(extensions: ["csv"]))
    var csv: String?

    @Option(help: ArgumentHelp("Run only trials with this id, or whose id starts with it followed by '/' (repeatable): e.g. 'bank', 'bank/mutex', 'bank/mutex/t4/r0'.", valueName: "id"))
    var only: [String] = []

    @Option(help: ArgumentHelp("Use this seed for every selected trial (with --only, reruns one trial exactly).", valueName: "n"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Append each trial's record to this file as one JSON line the moment it finishes (survives a killed run).", valueName: "file"), completion: .file(extensions: ["ndjson"]))
    var ndjson: String?

    @Flag(name: .customLong("fail-fast"), help: "Stop at the first trial that does not pass (the rest are recorded as skipped).")
    var failFast = false

    @Flag(name: .customLong("in-process"), help: "Run trials inside this process, for a debugger: a trap ends the run; a deadlock or hang is printed by the watchdog and ends the run with status 3; trial timeouts do not apply.")
    var inProcess = false

    @Flag(name: .customLong("allow-skipped"), help: "Exit by what ran when trials are skipped for lack of jemalloc, the interposer or a child process. Without it, a run that skipped every trial, or a trial its plan expects to fail, exits with 3: nothing checked is not success.")
    var allowSkipped = false

    @Flag(name: .shortAndLong, help: "Print no progress display and no \"wrote\" lines, only the table.")
    var quiet = false

    @Flag(name: .customLong("allow-large"), help: "Run a plan past the size limits (more than 1024 threads in a trial, or more than 24h of trials), as `allow_large: true` in the plan would.")
    var allowLarge = false

    @Option(help: ArgumentHelp("Compare every cell with the same cell of this earlier results file (JSON); a regression exits with 4.", valueName: "file"), completion: .file(extensions: ["json"]))
    var baseline: String?

    @OptionGroup(title: "Baseline comparison")
    var gateOptions: GateOptions

    @OptionGroup(title: "More outputs")
    var outputs: ReportOutputs

    @Option(help: ArgumentHelp("Run only slice i of n of the matrix (e.g. 2/4): whole cells, balanced by expected duration, the same on every machine. With --explore: every trial, exploring share i of its schedule space.", valueName: "i/n"))
    var shard: String?

    @Option(help: ArgumentHelp("After the run, for each trial that failed free-running (violated, deadlock, hang) and that control can run: run controlled trials of its cell (fuzz yield, seeds derived from the failing one, shrinking on) for up to this many seconds (1 to 3600; 0: none), until one fails the same way; the report draws its trace. Overrides the plan's `hunt`. Outcomes and the exit code stay as they were.", valueName: "seconds"))
    var hunt: Int?

    /// `10 s`, `500ms`: a hunt's budget as the progress line says it.
    static func huntBudget(_ ns: UInt64) -> String {
        ns % 1_000_000_000 == 0 ? "\(ns / 1_000_000_000) s" : Quantities.format(nanoseconds: ns)
    }

    func validate() throws {
        try TrialOverrides.checkSeed(seed)
        if let hunt, !(0...HuntRecord.longestSeconds).contains(hunt) {
            throw ValidationError("--hunt takes whole seconds from 0 to \(HuntRecord.longestSeconds), the time to hunt for each free-running "
                                  + "failure under control (0: none, whatever the plan's hunt says); got \(hunt)")
        }
        if let recorded = overrides.recordedSchedule {
            throw ValidationError("run's --schedule takes free or controlled; a recorded schedule ('\(String(recorded.prefix(40)).terminalSafe)') "
                                  + "is followed by `stressbench replay PLAN --only ID --schedule ...`")
        }
        if let shard {
            do { _ = try TrialShard(parsing: shard) } catch { throw ValidationError(error.message) }
        }
    }

    func run() throws {
        let registry = CommandContext.current
        var loaded = try loadPlan(plan, registry: registry, allowLarge: allowLarge)
        var policy = loaded.gate
        policy.comparison = gateOptions.applied(to: policy.comparison)
        // --repetitions is applied by the runner (and carried by rerun commands).
        if overrides.repetitions == nil, baseline != nil || policy.expectsComparison {
            GatedRepetitions.apply(to: &loaded, settings: policy.comparison)
        }
        // Read the baseline and check every output path before anything runs: a
        // bad file is a usage error, not something to find out after an hour of trials.
        // A run narrowed with --only (a printed rerun of one cell) is compared
        // with the same cells of the baseline, not reported as missing the rest.
        let baselineReport = try baseline.map(ResultsFile.load).map { $0.selecting(only: only) }
        try outputs.check(plus: [("--json", json), ("--csv", csv), ("--ndjson", ndjson)],
                          reading: [InputFile(role: "the plan file", path: plan), .runningExecutable]
                            + (baseline.map { [InputFile(role: "the baseline", path: $0)] } ?? []))
        var options = RunOptions(
            isolation: inProcess ? .inProcess : .currentExecutable,
            only: only, seed: seed, failFast: failFast, streamPath: ndjson, handleInterrupts: true,
            baselineFile: baseline, executableName: CommandContext.executableName
        )
        options.shard = try shard.map { text throws in try TrialShard(parsing: text) }
        overrides.apply(to: &options)
        options.allowLarge = allowLarge
        options.allowSkipped = allowSkipped
        options.huntNs = hunt.map { UInt64($0) * 1_000_000_000 }
        options.launcher = CommandContext.launcher
        let runner = PlanRunner(registry: registry, options: options)
        if let problem = runner.sizeProblem(of: loaded) {
            throw CommandError.usage("\(problem)\(overrides.repetitions != nil || baseline != nil ? " (with the repetitions this run asks for)" : ""); nothing was run")
        }
        let selected = runner.selectedTrials(of: loaded)
        if selected.isEmpty {
            try EmptyShard.explain(shard: options.shard, only: only, matrix: runner.matrix(of: loaded))
        }
        try overrides.checkWatchdog(selected)
        try overrides.checkSchedule(selected, runner: runner)
        if !quiet {
            let planned = runner.selectedTrials(of: loaded)
            var shown = loaded
            shown.experiments = loaded.experiments.filter { e in planned.contains { $0.experiment == e.name } }
            for warning in PlanWarnings.warnings(shown, usableCores: EnvironmentInfo.current.usableCores) { Console.error(warning) }
            for warning in PlanWarnings.huntWarnings(shown, selected: planned, runHuntNs: options.huntNs) { Console.error(warning) }
        }
        // One worker runs alone whatever the pool's width: only trials of more.
        let taskStrategies = Set(selected.filter { $0.threads > 1 }.map(\.strategy))
            .filter { registry.strategy(named: $0)?.descriptor.execution == .tasks }.sorted()
        if let warning = EnvironmentInfo.current.cooperativePoolWarning(taskStrategies: taskStrategies) {
            Console.error(warning)
        }
        let progress = ProgressDisplay(trials: selected, quiet: quiet)
        var report: RunReport
        // A stopped run's skipped records go to the stream while the other files are written.
        let streamTail: StreamTail?
        do {
            (report, streamTail) = try runner.runLeavingTheStreamTail(loaded, progress: { index, total, spec, result in
                progress.update(index: index, total: total, spec: spec, result: result)
            }, hunting: { id, budgetNs in
                progress.finish()
                if !quiet { Console.error("hunting under control for \(id)'s failure (up to \(Self.huntBudget(budgetNs)))") }
            })
        } catch {
            progress.finish()
            throw CommandError.failure(error.description)
        }
        progress.finish()
        let thresholds = loaded.experiments.contains { !policy.thresholds(forExperiment: $0.name).isEmpty }
        if thresholds || baselineReport != nil {
            report.gate = GateReport.evaluate(report.trials, policy: policy, baseline: baselineReport, baselineFile: baseline,
                                              environment: report.environment)
        }
        // The files first, so the table's last line can give the exit code the
        // process really ends with; what the writer has to say comes after it.
        var writer = OutputWriter(quiet: quiet)
        var withCells = report
        if json != nil { withCells.cells = CellSummary.of(report) }
        // A signal's code (130, 143) outranks a file that could not be written:
        // the user asked the run to stop, and a script must see that.
        let interrupted = report.stop?.reason == .signal
        // The table is rendered while the files are written, with the code
        // they will give if they are all written (a stopped run's code does
        // not depend on them); again after, should one fail.
        let likely = writer.exitCode(after: report.exitCode, interrupted: interrupted)
        let table = Mutex<String?>(nil)
        writer.write(concurrently: [
            (json, { @Sendable [withCells] out in try ResultCoding.writeResults(withCells, to: out) }),
            (csv, { @Sendable [report] out in CSVReport.write(report, to: out) }),
        ], alongside: { @Sendable [report] in
            let text = TableReport.render(report, exitCode: likely)
            table.withLock { $0 = text }
        })
        outputs.write(report, into: &writer)
        streamTail?.wait()
        let code = writer.exitCode(after: report.exitCode, interrupted: interrupted)
        // With an output on standard output (`-`), the table goes to standard error.
        let out = Console.Stream(toStandardError: [json, csv, ndjson].contains(where: AtomicFile.isStandardOutput) || outputs.writesStandardOutput)
        out.write(code == likely ? table.withLock { $0 } ?? TableReport.render(report, exitCode: code) : TableReport.render(report, exitCode: code))
        let gateText = GateSummary.render(report.gate, planFile: report.planFile, rerun: options.rerun)
        if !gateText.isEmpty { out.write("\n" + gateText) }
        if report.gate != nil { out.write("\ngate: exit code \(code.rawValue) (\(code.meaning))\n") }
        writer.printMessages()
        if let stop = report.stop {
            let skipped = report.trials.count { $0.outcome == .skipped }
            Console.error("\(stop.summary): \(report.trials.count - skipped) finished trial(s) kept, \(skipped) skipped")
        }
        throw ExitCode(code.rawValue)
    }
}

/// How many repetitions a run that will be compared with a baseline needs.
enum GatedRepetitions {
    /// Raises the repetitions of every experiment that leaves them to the
    /// default (1, which no comparison can judge) to what a comparison of the
    /// plan's cells needs (``ComparisonSettings/samplesNeeded(forCells:)``),
    /// and warns about experiments that set fewer themselves. The count is
    /// that of the whole matrix, so every shard and the baseline run of the
    /// same plan agree on it.
    static func apply(to plan: inout Plan, settings: ComparisonSettings) {
        let cells = Set(TrialMatrix.expand(plan).map(CellKey.init)).count
        let needed = settings.samplesNeeded(forCells: cells)
        for i in plan.experiments.indices {
            let e = plan.experiments[i]
            if !e.repetitionsGiven {
                plan.experiments[i].repetitions = needed
            } else if e.repetitions < needed {
                Console.error("warning: experiment '\(e.name)' sets repetitions: \(e.repetitions), but a comparison of this plan's \(cells) cell(s) "
                              + "needs \(needed) a side to call a regression (Holm correction; docs/gate.md, \"Repetitions\"): its cells can only be unchanged or inconclusive")
            }
        }
    }
}

/// Loads a plan or reports every problem in it and exits with code 2.
func loadPlan(_ path: String, registry: StressRegistry, allowLarge: Bool = false) throws -> Plan {
    do {
        return try PlanLoader(registry: registry, allowLarge: allowLarge).load(file: path)
    } catch {
        Console.error(error.description)
        throw ExitCode(RunExitCode.usage.rawValue)
    }
}

/// Errors a command reports in one line before exiting.
enum CommandError: Error, CustomStringConvertible {
    case usage(String)
    case failure(String)

    var description: String {
        switch self {
        case .usage(let m), .failure(let m): return m
        }
    }
}

/// Writing to the terminal.
enum Console {
    /// Writes `line` to standard error, after flushing standard output: a
    /// log that holds both then shows them in the order they were written.
    static func error(_ line: String) {
        fflush(nil)  // every C output stream: standard output is the one that matters
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Where a command's report goes: standard output, or standard error
    /// when standard output carries one of its files (`--json -`).
    struct Stream {
        let toStandardError: Bool

        func write(_ text: String) {
            if toStandardError {
                fflush(nil)  // every C output stream: standard output is the one that matters
                FileHandle.standardError.write(Data(text.utf8))
            } else {
                print(text, terminator: "")
            }
        }
    }
}
