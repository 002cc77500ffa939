@testable import StressCore
import StressKitTestSupport
import XCTest

/// Runs built-in workloads and scenarios under controlled scheduling, in
/// this process, straight through the engine.
enum ControlledTrialSupport {
    struct Outcome {
        var output: EngineOutput?
        var stall: StallReport?
        var error: Error?
        var firstMessage: String? { output?.violations.samples.first?.message }
    }

    static func settings(threads: Int, seed: UInt64, fuzz: FuzzProfile, maxDecisions: Int = 20_000,
                         ops: Int? = nil, forced: [Int]? = nil) -> TrialSettings {
        var settings = TrialSettings(threads: threads, seed: seed, warmupNs: 0,
                                     stop: ops.map { .operations(perThread: $0) } ?? .duration(nanoseconds: 60_000_000_000),
                                     stallAfterNs: 60_000_000_000, fuzz: FuzzSettings(fuzz), stopOnViolation: true)
        settings.schedule = .controlled
        settings.maxDecisions = maxDecisions
        settings.forcedSchedule = forced
        return settings
    }

    /// Runs workload `name` with `parameters` under `strategy`. A stall is
    /// caught (the stuck workers are left parked: the test process ends them).
    static func run(_ name: String, _ parameters: [String: ParameterValue] = [:], strategy: String,
                    settings: TrialSettings, scenario: Bool = false) -> Outcome {
        var registry = StressRegistry.builtIn
        registry.register(workload: ControlledProbeWorkload.self)
        registry.register(workload: TimedWaitWorkload.self)
        registry.register(workload: SemaphoreHandOffWorkload.self)
        registry.register(workload: OnceWaitWorkload.self)
        registry.register(scenario: MainThreadRoleScenario.self)
        registry.register(workload: ControlledQueueWorkload.self)
        registry.register(scenario: ControlledQueueScenario.self)
        guard let entry = registry.strategy(named: strategy) else { return Outcome(error: TestError("no strategy \(strategy)")) }
        let stalled = StallBox()
        let specs = scenario ? registry.scenario(named: name)?.descriptor.parameters ?? [] : registry.workload(named: name)?.descriptor.parameters ?? []
        let filled = WorkloadParameters(defaultsOf: specs, overrides: parameters)
        let run: @Sendable (WorkloadParameters, StrategyEntry, TrialSettings, @escaping @Sendable (StallReport) -> Void) throws -> EngineOutput
        if scenario {
            guard let s = registry.scenario(named: name) else { return Outcome(error: TestError("no scenario \(name)")) }
            run = s.run
        } else {
            guard let w = registry.workload(named: name) else { return Outcome(error: TestError("no workload \(name)")) }
            run = w.run
        }
        // A stall never returns from the engine: run it on a thread of its own
        // and wait for either.
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox()
        let thread = Thread {
            do {
                result.set(try run(filled, entry, settings) { report in
                    stalled.set(report)
                    done.signal()
                })
            } catch {
                result.fail(error)
            }
            done.signal()
        }
        thread.stackSize = 1 << 22
        thread.start()
        done.wait()
        if let stall = stalled.get() { return Outcome(stall: stall) }
        return Outcome(output: result.output, error: result.error)
    }

    struct TestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    final class StallBox: @unchecked Sendable {
        // @unchecked: guarded by the lock.
        private let lock = NSLock()
        private var report: StallReport?
        func set(_ r: StallReport) { lock.withLock { if report == nil { report = r } } }
        func get() -> StallReport? { lock.withLock { report } }
    }

    final class ResultBox: @unchecked Sendable {
        // @unchecked: written once before the semaphore is signalled, read after.
        var output: EngineOutput?
        var error: Error?
        func set(_ o: EngineOutput) { output = o }
        func fail(_ e: Error) { error = e }
    }
}
