import ArgumentParser
import CStressSupport
import Foundation
import StressKit

/// `stressbench _overhead` (hidden): the harness's own `counter` trial under
/// one lock and the hand-written loop over the same lock (``BaselineLoop``),
/// alternating in one process, pair after pair.
///
/// Why, beside the process pairs of `scripts/bench-lock-overhead.sh`: on the
/// reference VM each virtual CPU runs the same loop at one of two speeds
/// (pthread-mutex: about 7.5 or 12 ns/op), and switches between them
/// every few hundred milliseconds, each CPU on its own. A `stressbench run`
/// and a `_baseline` process seconds apart, on whichever CPUs the scheduler
/// gives them, straddle those switches, and the median ratio of a few such
/// pairs moves from run to run by more than its own confidence interval.
/// Here the two sides of a pair are windows of about 10 ms each, back to back,
/// and run pinned to one CPU (`taskset -c 0`, which the worker threads inherit)
/// they run in the same state of the host in nearly every pair.
///
/// The harness side is the trial as `stressbench run --in-process` runs it
/// (``LocalTrial``: the same engine, worker thread, watchdog and record as in
/// a child process), and its figure is the record's: measured window /
/// operations.
struct OverheadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_overhead",
        abstract: "Alternate the harness's counter trial and a hand loop over the same lock in one process (for scripts/bench-lock-overhead.sh).",
        discussion: """
        Prints one line per pair: the harness's ns/op (measured window / operations, \
        from the trial's record), the hand loop's ns/op, the interval the trial timed \
        at, the clock read cost the trial measured (ns), and with --sample 1 the ns/op \
        of the hand loop with the three clock reads a timed operation needs (else nan). \
        Which side of a pair runs first alternates. Each side warms up for --warmup-ms \
        before its measured window: the trial its own warm-up, the hand loop rounds of \
        an eighth of --iterations.
        """,
        shouldDisplay: false
    )

    @Argument(help: ArgumentHelp("The lock: \(Self.locks.joined(separator: ", ")).", valueName: "lock"))
    var lock: String

    @Option(help: "Pairs to run.")
    var pairs = 100

    @Option(help: "Operations in each side's measured window.")
    var iterations = 1_000_000

    @Option(help: "Warm-up of each side before its measured window, in milliseconds.")
    var warmupMs = 5

    @Option(help: "The trial's timing: 'auto' (the default timing) or an interval (1: every operation timed).")
    var sample = "auto"

    /// The locks with both a strategy and a hand loop of the same name.
    static let locks = ["pthread-mutex", "mutex", "nslock"]

    func validate() throws {
        guard Self.locks.contains(lock) else {
            throw ValidationError("unknown lock '\(lock)'; expected one of \(Self.locks.joined(separator: ", "))")
        }
        guard pairs > 0, iterations >= 8 else { throw ValidationError("--pairs must be at least 1 and --iterations at least 8") }
        guard (1...60_000).contains(warmupMs) else { throw ValidationError("--warmup-ms must be from 1 to 60000") }
        guard sample == "auto" || (Int(sample).map { $0 >= 1 } ?? false) else {
            throw ValidationError("--sample must be 'auto' or a whole number of at least 1")
        }
    }

    func run() throws {
        startIdleThread()
        // Said on standard error, for the reader of the figures; the script reads standard output.
        let cpus = stress_usable_cpus()
        if cpus > 1 {
            FileHandle.standardError.write(Data("_overhead: this process may run on \(cpus) CPUs; pinned to one (taskset -c 0) both sides of a pair run on the same CPU, whose speed they then share\n".utf8))
        }
        let registry = CommandContext.current
        // The trial comes from a plan, as `stressbench run` makes it, so that its
        // defaults are the ones a user's run gets.
        let text = """
            experiments:
              - workload: counter
                strategies: [\(lock)]
                threads: [1]
                ops: \(iterations)
                warmup: \(warmupMs)ms
                timing: {sample: \(sample)}
            """
        let plan: Plan
        do { plan = try PlanLoader(registry: registry).load(text: text, file: "<_overhead>") } catch {
            throw ValidationError("\(error)")
        }
        guard let spec = TrialMatrix.expand(plan).first else { throw ValidationError("the plan made no trial") }
        let plain = BaselineLoop(rawValue: lock)!
        let timedLoop = sample == "1" ? BaselineLoop(rawValue: "\(lock)-timed") : nil
        for pair in 0..<pairs {
            var harness: TrialMeasurement?
            var hand = 0.0, timedHand = Double.nan
            let runHarness = {
                let result = LocalTrial.run(spec, registry: registry)
                guard result.outcome == .passed, let measurement = result.measurement else {
                    throw ValidationError("the trial ended \(result.outcome.rawValue): \(result.failure?.message ?? "")")
                }
                harness = measurement
            }
            let runHand = {
                hand = warmedUp(plain)
                if let timedLoop { timedHand = warmedUp(timedLoop) }
            }
            if pair % 2 == 0 {
                runHand()
                try runHarness()
            } else {
                try runHarness()
                runHand()
            }
            let m = harness!
            // The hand loop with clock reads reads the CPU's counter: a fair
            // partner only for a trial that timed on it.
            let timed = m.timing?.clock == "tsc" ? timedHand : .nan
            // Written at once, unbuffered, so that a reader sees each pair as it ends.
            let fields: [CustomStringConvertible] = [
                Double(m.elapsedNs) / Double(m.totalOps), hand, m.timing?.sampleEvery ?? 0,
                m.timing?.clockReadNs ?? Double.nan, timed,
            ]
            FileHandle.standardOutput.write(Data((fields.map(\.description).joined(separator: " ") + "\n").utf8))
        }
    }

    /// The hand loop's ns/op over one measured round of `iterations`, after
    /// rounds of an eighth of that for `warmupMs`.
    private func warmedUp(_ loop: BaselineLoop) -> Double {
        let started = MonotonicClock.now()
        while MonotonicClock.now() &- started < UInt64(warmupMs) * 1_000_000 { _ = loop.time(iterations: iterations / 8) }
        return Double(loop.time(iterations: iterations)) / Double(iterations)
    }
}
