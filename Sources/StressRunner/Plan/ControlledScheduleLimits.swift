import StressCore

/// What a controlled schedule cannot run, and why, in the words the plan
/// loader and the command line refuse it with.
///
/// A controlled trial runs one thread worker at a time and switches only at
/// the scheduling points the harness sees. So it cannot drive tasks (an
/// actor strategy), load paced by the wall clock, or a litmus test, whose weak-memory
/// outcomes need two processors running at once.
package enum ControlledScheduleLimits {
    /// The most decisions `max_decisions` and `--max-decisions` may allow:
    /// as many as a schedule's text may hold (``ScheduleEncoding``), so that
    /// every schedule a trial records can be replayed.
    package static let mostDecisions = 100_000_000

    /// Why `strategy` cannot run under a controlled schedule; nil when it can.
    package static func strategyProblem(_ strategy: StrategyDescriptor) -> String? {
        if strategy.execution == .tasks {
            return "its workers are tasks, and a controlled schedule drives thread workers; for async code the "
                + "deterministic executor (executor: deterministic) is the controlled schedule: it picks every next "
                + "job by the seed (run this strategy with schedule: free)"
        }
        return nil
    }

    /// Why a paced load cannot run under a controlled schedule.
    package static let pacedProblem = "a paced load (load.rate) starts operations by the wall clock, and a controlled "
        + "trial runs one worker at a time by the seed, not by time: leave load out (the closed loop) or use schedule: free"

    /// Why scenario `name`, a litmus test, cannot run under a controlled schedule.
    package static func litmusProblem(_ name: String) -> String {
        "scenario '\(name)' is a memory-model litmus test: a controlled trial runs one worker at a time, so it is "
            + "sequentially consistent, and weak-memory outcomes (store buffering's 0, 0) cannot occur under it; "
            + "run litmus tests with schedule: free"
    }

    /// Why trial `spec` cannot run under a controlled schedule (whatever its
    /// own schedule says); nil when it can, or when `registry` does not know
    /// what it runs (running it reports that).
    package static func problem(of spec: TrialSpec, registry: StressRegistry) -> String? {
        if let strategy = registry.strategy(for: spec), let why = strategyProblem(strategy.descriptor) {
            return "strategy '\(spec.strategy)': \(why)"
        }
        if spec.load.mode == .paced { return pacedProblem }
        if spec.scenario == true, let scenario = registry.scenario(named: spec.workload), scenario.descriptor.needsWeakMemory {
            return litmusProblem(spec.workload)
        }
        return nil
    }
}
