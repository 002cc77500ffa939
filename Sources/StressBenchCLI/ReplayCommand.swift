import ArgumentParser
import Foundation
import StressKit

/// `stressbench replay PLAN --only ID --seed S --times N`.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Rerun one trial N times with its seed and report how often the failure comes back.",
        discussion: """
        Every fuzz decision is a pure function of the seed, the worker and the index of \
        the point on that worker, so the same seed makes the same decisions; the OS \
        still chooses the interleaving, so a race may not come back every time. The \
        replay rate (e.g. 7/10) says how reproducible the failure is.

        A trial whose workers are tasks on the deterministic executor (the plan's \
        `executor: deterministic`, or --executor deterministic here) runs one job at a \
        time, the seed choosing every next one, with Task.sleep on a virtual clock: \
        its interleaving is a function of the seed, so a failure found there comes \
        back every time, on one core or many. Replay then also says whether every \
        rerun failed with the same first message.

        A controlled trial (the plan's `schedule: controlled`, or --schedule \
        controlled here) runs one thread worker at a time, the seed choosing every \
        switch: it replays exactly, and replay prints `identical schedule: N/M` \
        beside the replay rate, N being the reruns that made the same decisions as \
        the reference: the schedule given with --schedule, else the first rerun's \
        own (which so always counts). `--schedule w0:2,w1:3,...`, the `encoded` \
        schedule of a record (or the one a report's replay line prints), makes the \
        trial controlled and follows that schedule exactly; its workers must be \
        the trial's (w0 to w<threads - 1>). A shrunk schedule's replay line also \
        gives --ops N, the operations per worker (a scenario's rounds) the shrunk \
        run had, so the replay ends where it did. Replay never shrinks (it \
        prints no trace, and each rerun's schedule is compared as it ran): \
        --no-shrink and --shrink-seconds are accepted and change nothing. \
        --explore explores again, once per rerun; with a recorded --schedule \
        it is refused.

        Every rerun command `run` prints works here with `run` replaced by `replay`: \
        it takes the same overrides (--repetitions, --allocator, --fuzz, \
        --stop-on-violation, --deadlock-after, --trial-timeout, --baseline, --allow-large, \
        --schedule, --max-decisions, --explore, --no-shrink, --shrink-seconds, --ops, --duration, --warmup), \
        so the trial ids and settings are the ones of the run that printed it.

        An id may name a repetition past the plan's count (`.../r7` of a plan \
        of 3 repetitions, printed by a run with --repetitions 8): its seed \
        and settings derive from the repetition's number alone, so replay \
        runs it as that run did, and says so.

        Exit code: 0 when at least one rerun failed the same way as --expect (any \
        failure by default), 1 when none did, 2 for a usage or plan error.
        """
    )

    @Argument(help: "The plan file.", completion: .file(extensions: ["yaml", "yml", "json"]))
    var plan: String

    @Option(help: ArgumentHelp("The trial id (as printed in a report's rerun command).", valueName: "id"))
    var only: String

    @Option(help: ArgumentHelp("The trial seed (default: the one the plan derives).", valueName: "n"))
    var seed: UInt64?

    @OptionGroup
    var overrides: TrialOverrides

    @Option(help: ArgumentHelp("The baseline a gated run compared with: as in `run`, it raises the repetitions of experiments that leave them to the default, so the same trial ids exist (nothing is compared).", valueName: "file"))
    var baseline: String?

    @Option(help: "How many reruns.")
    var times = 10

    @Flag(name: .customLong("allow-large"), help: "Accept a plan past the size limits, as `run --allow-large` does.")
    var allowLarge = false

    @Option(help: ArgumentHelp("The outcome that counts as reproduced (violated, deadlock, crashed, ...); default: any failure.", valueName: "outcome"))
    var expect: String?

    func validate() throws {
        guard times >= 1 else { throw ValidationError("--times must be at least 1") }
        try TrialOverrides.checkSeed(seed)
        if let expect, TrialOutcome(rawValue: expect) == nil {
            throw ValidationError("--expect takes one of \(TrialOutcome.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let registry = CommandContext.current
        var loaded = try loadPlan(plan, registry: registry, allowLarge: allowLarge)
        // The same trials as the run that printed the command: a gated run
        // raises the default repetitions, and so does this.
        if overrides.repetitions == nil, baseline != nil || loaded.gate.expectsComparison {
            GatedRepetitions.apply(to: &loaded, settings: loaded.gate.comparison)
        }
        var options = RunOptions(only: [only], seed: seed, handleInterrupts: true)
        overrides.apply(to: &options)
        // Each rerun is judged as it ran: a shrunk record's schedule would
        // be the smallest one's, not the one followed.
        options.shrinkNs = 0
        var runner = PlanRunner(registry: registry, options: options)
        var trials = runner.selectedTrials(of: loaded)
        if trials.isEmpty, let reach = ReplayRepetition.reach(only, plan: loaded, options: options, registry: registry) {
            // A repetition past the plan's count, which a run with a larger
            // --repetitions made: its seed and settings derive from its
            // number, so the plan is widened to reach it.
            loaded = reach.plan
            options = reach.options
            runner = PlanRunner(registry: registry, options: options)
            trials = runner.selectedTrials(of: loaded)
            FileHandle.standardError.write(Data("stressbench replay: \(reach.note)\n".utf8))
        }
        guard trials.count == 1, let spec = trials.first else {
            throw CommandError.usage(ReplayRepetition.mismatch(only, matched: trials, plan: loaded, runner: runner))
        }
        try overrides.checkWatchdog(trials)
        try overrides.checkSchedule(trials, runner: runner)
        if let recorded = overrides.recordedSchedule {
            do {
                _ = try ScheduleEncoding.decode(recorded, workers: spec.threads)
            } catch {
                throw CommandError.usage("--schedule: \(error.description)")
            }
        }
        let controlled = spec.schedule == .controlled
        var schedules = IdenticalSchedules(given: overrides.recordedSchedule)
        let wanted = expect.flatMap(TrialOutcome.init(rawValue:))
        var hits = 0
        var counts: [TrialOutcome: Int] = [:]
        var firsts = Set<String>()
        for i in 1...times {
            if Interruption.requested { break }
            let result = runner.runTrial(spec)
            counts[result.outcome, default: 0] += 1
            let reproduced = wanted.map { result.outcome == $0 } ?? result.outcome.isFailure
            if reproduced { hits += 1 }
            if controlled { schedules.add(result.schedule) }
            let first = result.violations.samples.first?.summaryLine ?? result.failure?.message ?? ""
            if reproduced { firsts.insert(Self.comparable(first)) }
            print("run \(i)/\(times): \(result.outcome.rawValue)\(first.isEmpty ? "" : ": " + first)")
        }
        let total = counts.values.reduce(0, +)
        let spread = TrialOutcome.allCases.compactMap { o in counts[o].map { "\($0) \(o.rawValue)" } }.joined(separator: ", ")
        let executor = spec.executor.map { ", executor \($0.rawValue)" } ?? ""
        // A controlled trial's schedule count stands beside its rate; a free
        // trial's line is as it always was.
        let identical = controlled ? ", \(schedules.summary)" : ""
        let schedule = controlled ? ", schedule controlled" : ""
        print("replay rate: \(hits)/\(total) (\(spread))\(identical); trial \(spec.id), seed \(spec.seed), "
              + "fuzz \(spec.fuzz.profile.rawValue)\(executor)\(schedule)")
        if hits > 1 {
            print(firsts.count == 1 ? "every reproduction failed with the same first message"
                                    : "the reproductions failed with \(firsts.count) different first messages")
        }
        throw ExitCode(hits > 0 ? 0 : 1)
    }

    /// A first message as reruns compare it: the same failure, whatever the
    /// watchdog's timing said ("stalled for 503.4ms") and wherever the
    /// process put its objects (an address, "0x7f3a…", differs from run to
    /// run even when the lock-order inversion is the same).
    static func comparable(_ message: String) -> String {
        message.replacing(/\b0x[0-9A-Fa-f]+\b/, with: "0x…").replacing(/\d+(\.\d+)?(ns|µs|us|ms|s)\b/, with: "…")
    }
}
