import ArgumentParser
import CStressSupport
import Foundation
import StressKit

/// `stressbench-dev overhead`: the harness's own `counter` trial under
/// one lock and the hand-written loop over the same lock (``BaselineLoop``),
/// alternating in one process, pair after pair.
///
/// Why, beside the process pairs of `scripts/bench-lock-overhead.sh`: on the
/// reference VM each virtual CPU runs the same loop at one of two speeds
/// (pthread-mutex: about 7.5 or 12 ns/op), and switches between them
/// every few hundred milliseconds, each CPU on its own. A `stressbench run`
/// and a `stressbench-dev baseline` process seconds apart, on whichever CPUs the scheduler
/// gives them, straddle those switches, and the median ratio of a few such
/// pairs moves from run to run by more than its own confidence interval.
/// Here a pair is two measured windows of about 10 ms each (with the default
/// timing), each after 5 ms of warm-up, some 25 ms in all, and the process is
/// pinned to one CPU (the threads it makes inherit that): most pairs then run
/// wholly at one speed. On 2026-11-24 the middle half of 100 such pairs'
/// ratios lay within about 0.96 to 1.00 for pthread-mutex, against 0.96 to
/// 1.5 unpinned.
///
/// The harness side is the trial as `stressbench run --in-process` runs it
/// (``LocalTrial``: the same engine, worker thread, watchdog and record as in
/// a child process), and its figure is the record's: measured window /
/// operations.
struct OverheadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "overhead",
        abstract: "Alternate the harness's counter trial and a hand loop over the same lock in one process (for scripts/bench-lock-overhead.sh).",
        discussion: """
        Prints one line per pair: the harness's ns/op (measured window / operations, \
        from the trial's record), the hand loop's ns/op, the interval the trial timed \
        at, the cost of a clock read in ns (measured once in the process, so the same \
        on every line), and with --sample 1 the ns/op of the hand loop with the three \
        clock reads a timed operation needs (else nan). Which side of a pair runs first \
        alternates; with --sample 1 the trial runs between the two hand loops. Each side \
        warms up for --warmup-ms before its measured window: the trial its own warm-up, \
        the hand loop rounds of an eighth of --iterations. A trial that does not pass \
        ends the command with the status `run` would give it (1 or 3).
        """,
        aliases: ["_overhead"]  // its name as a hidden `stressbench` command, which older builds answer to
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

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Pin the process to one CPU (the first it may run on) before anything runs.",
        discussion: "Both sides of every pair then run on that CPU, whose speed they share; unpinned, the trial's worker and the hand loop can run on two CPUs whose speeds change independently. Linux only; elsewhere the command says it runs unpinned."
    ))
    var pin = true

    /// The locks with both a strategy and a hand loop of the same name.
    static let locks = ["pthread-mutex", "mutex", "nslock", "actor"]

    /// `--sample` as the plan's `timing.sample`: nil for `auto`, else the interval.
    private var interval: Int? { Int(sample) }

    func validate() throws {
        guard Self.locks.contains(lock) else {
            throw ValidationError("unknown lock '\(lock)'; expected one of \(Self.locks.joined(separator: ", "))")
        }
        guard pairs > 0 else { throw ValidationError("--pairs must be at least 1") }
        guard iterations >= 8 else { throw ValidationError("--iterations must be at least 8") }
        guard (1...60_000).contains(warmupMs) else { throw ValidationError("--warmup-ms must be from 1 to 60000") }
        guard sample == "auto" || (interval.map { $0 >= 1 } ?? false) else {
            throw ValidationError("--sample must be 'auto' or a whole number of at least 1")
        }
    }

    func run() throws {
        // Pinned first, so that every thread made after inherits the CPU.
        let cpu = pin ? stress_pin_to_first_usable_cpu() : -1
        // Said on standard error, for the reader of the figures; the script reads standard output.
        if cpu >= 0 {
            say("pinned to CPU \(cpu)")
        } else if stress_usable_cpus() != 1 {
            say("not pinned (\(pin ? "this platform cannot pin" : "--no-pin")): the trial's worker and the hand loop may run on different CPUs")
        }
        // The first pair's hand loop runs before any trial has made a thread:
        // without a second thread glibc would time its cheaper single-threaded
        // lock paths (see `baseline`).
        startIdleThread()
        // The built-ins: the `counter` workload and the lock strategies.
        let registry = StressRegistry.builtIn
        // The trial comes from a plan, as `stressbench run` makes it, so that its
        // defaults are the ones a user's run gets.
        let text = """
            experiments:
              - workload: counter
                strategies: [\(lock)]
                threads: [1]
                ops: \(iterations)
                warmup: \(warmupMs)ms
                timing: {sample: \(interval.map(String.init) ?? "auto")}
            """
        let plan: Plan
        do { plan = try PlanLoader(registry: registry).load(text: text, file: "<overhead>") } catch {
            throw ValidationError("\(error)")
        }
        guard let spec = TrialMatrix.expand(plan).first else { throw ValidationError("the plan made no trial") }
        let plain = BaselineLoop(rawValue: lock)!
        let timedLoop = interval == 1 ? BaselineLoop(rawValue: "\(lock)-timed") : nil
        for pair in 0..<pairs {
            // Which goes first alternates. With two hand loops the trial sits
            // between them, so each is next to the trial in every pair, before
            // it in half of them.
            let before: [BaselineLoop], after: [BaselineLoop]
            if let timedLoop {
                (before, after) = pair % 2 == 0 ? ([plain], [timedLoop]) : ([timedLoop], [plain])
            } else {
                (before, after) = pair % 2 == 0 ? ([plain], []) : ([], [plain])
            }
            var figures: [BaselineLoop: Double] = [:]
            for loop in before { figures[loop] = warmedUp(loop) }
            let m = try trial(spec, registry)
            for loop in after { figures[loop] = warmedUp(loop) }
            // The hand loop with clock reads reads the CPU's counter: a fair
            // partner only for a trial that timed on it.
            let timed = m.timing?.clock == "tsc" ? timedLoop.flatMap { figures[$0] } ?? .nan : .nan
            let fields: [CustomStringConvertible] = [
                Double(m.elapsedNanoseconds) / Double(m.totalOps), figures[plain]!, m.timing?.sampleEvery ?? 0,
                m.timing?.clockReadNs ?? Double.nan, timed,
            ]
            // Written at once, unbuffered, so that a reader sees each pair as it ends.
            FileHandle.standardOutput.write(Data((fields.map(\.description).joined(separator: " ") + "\n").utf8))
        }
    }

    /// Runs the trial and returns its figures. A trial that did not pass ends
    /// the command with the status it would give `stressbench run`: 1 for
    /// violations, 3 for a crash, deadlock or hang (a stalled trial's threads
    /// cannot be taken back, so that exits at once).
    private func trial(_ spec: TrialSpec, _ registry: StressRegistry) throws -> TrialMeasurement {
        let result = LocalTrial.run(spec, registry: registry) { stalled in
            say("the trial ended \(stalled.outcome.rawValue): \(stalled.failure?.message ?? "")")
            Foundation.exit(RunExitCode.trialFailures.rawValue)
        }
        guard result.outcome == .passed, let measurement = result.measurement else {
            let why = result.failure?.message ?? "\(result.violations.count) violations"
            say("the trial ended \(result.outcome.rawValue): \(why)")
            throw ExitCode(result.outcome == .violated ? RunExitCode.violations.rawValue : RunExitCode.trialFailures.rawValue)
        }
        return measurement
    }

    /// The hand loop's ns/op over one measured round of `iterations`, after
    /// rounds of an eighth of that for `warmupMs`.
    private func warmedUp(_ loop: BaselineLoop) -> Double {
        let started = MonotonicClock.now()
        while MonotonicClock.now() &- started < UInt64(warmupMs) * 1_000_000 { _ = loop.time(iterations: iterations / 8) }
        return Double(loop.time(iterations: iterations)) / Double(iterations)
    }
}

/// Writes `message` on standard error, prefixed with the command's name.
private func say(_ message: String) {
    FileHandle.standardError.write(Data("overhead: \(message)\n".utf8))
}
