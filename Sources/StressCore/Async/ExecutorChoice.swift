/// Where a trial's worker tasks run their jobs: the plan key `executor` and the
/// `--executor` flag of `run` and `replay`.
///
/// Only trials whose workers are tasks use it (an isolating strategy such as
/// `actor`, or a workload or scenario with an `async` step); thread workers
/// ignore it.
public enum ExecutorChoice: String, Sendable, Codable, CaseIterable {
    /// Swift's global concurrent executor, as an app's tasks run: the harness
    /// perturbs only at its own fuzz points around steps.
    case global
    /// The harness's task executor (SE-0417): every worker task prefers it, so
    /// its non-isolated code and the default actors it calls run there, one job
    /// at a time per executor thread, and at every job boundary (each resumption
    /// after an `await`, each actor hop) the harness chooses which job runs next,
    /// delays it, reorders, starves a worker for a while, or runs PCT over jobs.
    case harness
    /// The harness executor on one thread: one job at a time, the seed choosing
    /// the next, and `Task.sleep` on a virtual clock. An async trial's
    /// interleaving is then a function of its seed, on one core or many, under
    /// load or not: `replay` reproduces it every time.
    case deterministic

    /// The choice when a plan names none: the harness executor for a program
    /// with an `async` step, the global executor otherwise (the `actor`
    /// strategy's figures then stay those of Swift's own executor).
    static func automatic(awaits: Bool) -> ExecutorChoice { awaits ? .harness : .global }

    /// The executor a trial runs on: the plan's `choice` (or the automatic
    /// one) when its workers are tasks (`awaits`: an async step; `tasks`: an
    /// isolating strategy), `global` otherwise (thread workers ignore it).
    static func resolved(_ choice: ExecutorChoice?, awaits: Bool, tasks: Bool) -> ExecutorChoice {
        awaits || tasks ? choice ?? automatic(awaits: awaits) : .global
    }

    /// One line per choice, for `--help` and the plan reference.
    public static let help = """
        global: Swift's global concurrent executor; harness: the harness's task executor, which perturbs at every job \
        boundary; deterministic: the harness executor on one thread, the seed choosing every next job (replayable)
        """
}
