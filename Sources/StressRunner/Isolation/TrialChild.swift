import CStressSupport
import Dispatch
import Foundation
import StressCore

/// The child side of process isolation: reads a ``TrialSpec`` from standard
/// input, runs it in this process, and writes one ``TrialResult`` as JSON to the
/// result descriptor (3, or `STRESSBENCH_RESULT_FD`).
///
/// A custom executable that wants child-process isolation for its own workloads
/// calls this from its trial command (`StressBenchCLI` does it for you).
package enum TrialChild {
    /// Environment variable naming the descriptor to write the result to.
    public static let resultDescriptorVariable = "STRESSBENCH_RESULT_FD"
    /// Environment variable with the parent's process id, set by the parent.
    public static let parentVariable = "STRESSBENCH_PARENT_PID"

    /// Runs the trial on standard input and exits: 0 when a record was written,
    /// 2 when the input was not a trial spec.
    public static func main(registry: StressRegistry) -> Never {
        _ = stress_die_with_parent()
        // A parent killed before that call took effect would leave this process
        // running on its own: then there is nobody to report to.
        if let parent = ProcessInfo.processInfo.environment[parentVariable].flatMap(Int32.init), getppid() != parent { _exit(3) }
        let input = FileHandle.standardInput.readDataToEndOfFile()
        guard let spec = try? ResultCoding.decoder().decode(TrialSpec.self, from: input) else {
            FileHandle.standardError.write(Data("stressbench _trial: standard input is not a trial spec (this command is internal to stressbench run)\n".utf8))
            exit(2)
        }
        let fd = ProcessInfo.processInfo.environment[resultDescriptorVariable].flatMap(Int32.init) ?? ChildProcess.resultDescriptor
        // A controlled trial's decisions go to the journal the parent gave,
        // which outlives this process should the code under test kill it.
        if let journal = ProcessInfo.processInfo.environment[CrashJournal.descriptorVariable].flatMap(Int32.init) {
            CrashJournal.install(CrashJournal(descriptor: journal))
        }
        // The trial is coordinated from a thread of its own: the main thread
        // serves the main queue and the main actor (MainThreadService), as in
        // an app, so workloads can dispatch to it.
        // Said before the trial starts, which reads it, not once the run
        // loop runs: the main thread is about to serve the main queue.
        MainThreadService.servesForGood()
        let coordinator = OSThread.spawn {
            let result = LocalTrial.run(spec, registry: registry, onStall: handOverStalled(to: fd), onHalt: handOverHalted(spec, to: fd))
            deliver(result, to: fd)
            exit(0)
        }
        guard coordinator != nil else {
            deliver(.failed(spec, .error, FailureReport(message: "could not start the trial's coordinating thread")), to: fd)
            exit(0)
        }
        // The run loop, not dispatchMain(): on Linux, dispatchMain() parks the
        // main thread and lets other threads drain the main queue (a
        // `DispatchQueue.main.sync` block then runs on its caller), where the
        // run loop drains it on the main thread itself, as an app's does.
        while true {
            if !RunLoop.main.run(mode: .default, before: .distantFuture) { MonotonicClock.sleep(nanoseconds: 1_000_000) }
        }
    }

    /// What a trial process does with the record of a trial its watchdog
    /// found stalled: the stuck workers never return, so it hands the record
    /// over and ends the process at once, with ``stalledExitStatus``.
    ///
    /// `_exit`, not `exit`: exit handlers could wait for a lock a stuck worker
    /// holds. Buffered output is flushed first, for the parent's tail of it;
    /// should that wait on a stuck worker's stream, the parent ends the
    /// process shortly after the record, as it ends any child that lingers.
    /// (It used to sleep until the parent did: 300 ms of every deadlocked or
    /// hung trial.)
    static func handOverStalled(to fd: Int32) -> @Sendable (TrialResult) -> Void {
        { stalled in
            deliver(stalled, to: fd)
            fflush(nil)
            _exit(stalledExitStatus)
        }
    }

    /// The exit status of a trial process that wrote the record of a stall
    /// (a deadlock or a hang) and ended itself, its workers still stuck.
    static let stalledExitStatus: Int32 = 75

    /// What a trial process replaying a crashed trial's decisions does when
    /// it reaches the last of them (``TrialSpec/haltAfterDecisions``): it
    /// writes the schedule and trace so far as its record and exits at
    /// once, before the worker chosen last runs into the crash again.
    static func handOverHalted(_ spec: TrialSpec, to fd: Int32) -> @Sendable (ScheduleRecord, [TraceEvent]) -> Void {
        { schedule, trace in
            var halted = TrialResult.failed(spec, .crashed, FailureReport(message: "halted before the recorded crash"))
            halted.schedule = schedule
            halted.trace = trace
            deliver(halted, to: fd)
            _exit(0)
        }
    }

    /// Writes one record as a line of JSON; exits 3 if that is impossible.
    static func deliver(_ result: TrialResult, to fd: Int32) {
        guard let data = try? ResultCoding.encoder(pretty: false).encode(result) else { _exit(3) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        do { try handle.write(contentsOf: data + Data("\n".utf8)) } catch { _exit(3) }
    }
}

/// Runs one trial in this process and turns what the engine reports into a record.
package enum LocalTrial {
    /// The record of running `spec` here.
    ///
    /// If the watchdog finds the trial stalled, `onStall` gets the `deadlock` or
    /// `hang` record and must end the process (the stuck threads cannot be
    /// stopped); by default it prints the report and exits with status 3, which
    /// is what an in-process run can do. `stopRequested` can end the trial early
    /// (see ``TrialSettings/stopRequested``); its figures then cover a shorter window.
    /// `onHalt` gets the schedule and trace of a trial that halts short of a
    /// recorded crash (``TrialSpec/haltAfterDecisions``) and must end the process.
    public static func run(
        _ spec: TrialSpec, registry: StressRegistry,
        onStall: @escaping @Sendable (TrialResult) -> Void = LocalTrial.exitOnStall,
        stopRequested: (@Sendable () -> Bool)? = nil,
        onHalt: (@Sendable (ScheduleRecord, [TraceEvent]) -> Void)? = nil
    ) -> TrialResult {
        let run: @Sendable (WorkloadParameters, StrategyEntry, TrialSettings, @escaping @Sendable (StallReport) -> Void) throws -> EngineOutput
        if spec.scenario == true {
            guard let scenario = registry.scenario(named: spec.workload) else {
                return .failed(spec, .error, FailureReport(message: "this binary has no scenario named '\(spec.workload)'"))
            }
            run = scenario.run
        } else {
            guard let workload = registry.workload(named: spec.workload) else {
                return .failed(spec, .error, FailureReport(message: "this binary has no workload named '\(spec.workload)'"))
            }
            if spec.check == .linearizable {
                guard let check = workload.runLinearizability else {
                    return .failed(spec, .error, FailureReport(message: "workload '\(spec.workload)' has no sequential model to check linearizability against"))
                }
                run = check
            } else {
                run = workload.run
            }
        }
        guard let strategy = registry.strategy(for: spec) else {
            return .failed(spec, .error, FailureReport(message: "this binary has no strategy named '\(spec.strategy)'"))
        }
        if spec.allocator == .jemalloc && !Jemalloc.isLoaded {
            return .failed(spec, .error, FailureReport(message: "jemalloc was asked for but is not this process's allocator (LD_PRELOAD did not take)"))
        }
        do {
            var settings = TrialSettings(spec)
            settings.stopRequested = stopRequested
            settings.onHalt = onHalt
            let output = try run(spec.parameters, strategy, settings) { report in
                onStall(stalledResult(spec, report))
            }
            var measurement = output.measurement
            measurement.roundsPerSecond = output.rounds?.roundsPerSecond
            var result = TrialResult(
                trial: spec, outcome: output.violations.count > 0 ? .violated : .passed,
                measurement: measurement, violations: output.violations, failure: nil
            )
            result.rounds = output.rounds?.rounds
            result.executorStats = output.executor
            result.outcomes = output.rounds?.outcomes
            result.schedule = output.schedule
            result.trace = output.trace
            result.shrink = output.shrink
            result.exploration = output.exploration
            result.linearizability = output.linearizability
            return result
        } catch {
            return .failed(spec, .error, FailureReport(message: "could not run the trial: \(error)"))
        }
    }

    /// The record of a trial the watchdog found stalled. A scenario's has
    /// its `rounds`: those every role had completed before the stall (each
    /// role runs once a round, in order, so the fewest operations any worker
    /// completed); its outcomes cannot be counted, their tables being the
    /// stuck workers'.
    static func stalledResult(_ spec: TrialSpec, _ report: StallReport) -> TrialResult {
        var result = TrialResult(
            trial: spec, outcome: report.kind == .deadlock ? .deadlock : .hang, measurement: nil,
            violations: .none, failure: FailureReport(message: report.summary), stall: report
        )
        // The engine gives a controlled trial's decisions up to the stall; a
        // free trial has none to give.
        result.schedule = report.schedule ?? (spec.schedule == .free ? .free : nil)
        result.trace = report.trace
        result.shrink = report.shrink
        result.exploration = report.exploration
        if spec.scenario == true {
            // Only the workers: a report may list other participants too (the main thread).
            result.rounds = report.workers.filter { $0.thread < spec.threads }.map(\.completedOps).min() ?? 0
        }
        return result
    }

    /// Prints a stalled trial's report and exits with status 3: an in-process run
    /// cannot take back threads that are stuck for good.
    public static let exitOnStall: @Sendable (TrialResult) -> Void = { result in
        var lines = ["stressbench: trial \(result.trial.id): \(result.failure?.message ?? result.outcome.rawValue)"]
        lines += result.stall?.workers.map { "  \($0.name): \($0.description)" } ?? []
        lines.append("stressbench: an in-process run cannot recover from this; run without --in-process to isolate it")
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        exit(RunExitCode.trialFailures.rawValue)
    }
}
