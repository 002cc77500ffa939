import StressCore

// The one-call forms a team's own tests use, and the plain rerun command of
// a record: apart from the runner itself, which they only call.

extension TrialResult {
    /// The command that reruns exactly this trial with `stressbench` and no
    /// overrides (a run's own records carry the exact one in ``rerunCommand``).
    ///
    /// - Parameter planFile: The plan file the command runs.
    /// - Returns: The command, quoted for a POSIX shell.
    public func makeRerunCommand(planFile: String) -> String {
        RerunCommand.standard.trial(trial, planFile: planFile)
    }
}

extension PlanRunner {
    /// Loads plan text, runs it, and returns the report: the one-call form for a
    /// team's own tests.
    ///
    /// ```swift
    /// var registry = StressRegistry.builtIn
    /// registry.register(workload: MyCacheWorkload.self)
    /// let report = try PlanRunner.run(yaml: """
    ///     experiments:
    ///       - workload: my-cache
    ///         strategies: [pthread-mutex, actor]
    ///         threads: [4]
    ///         ops: 10000
    ///     """, registry: registry)
    /// XCTAssertEqual(report.exitCode, .passed)
    /// ```
    ///
    /// Trials run in this process unless `options` says otherwise (point
    /// ``TrialIsolation/childProcess(executable:arguments:)`` at an executable
    /// that registers the same types to get isolation). For a test, ``StressTest``
    /// says the same without YAML, and `.isolated()` runs each trial in a child
    /// process of the test binary itself.
    ///
    /// - Parameters:
    ///   - text: The plan, as YAML (or JSON).
    ///   - file: What errors call the plan.
    ///   - registry: The workloads, scenarios and strategies the plan may name.
    ///   - options: How to run; by default every trial in this process.
    /// - Returns: The report of every trial.
    /// - Throws: An error naming the key and line when the plan is invalid.
    public static func run(
        yaml text: String, file: String = "<inline plan>", registry: StressRegistry,
        options: RunOptions = RunOptions(isolation: .inProcess)
    ) throws -> RunReport {
        let plan = try PlanLoader(registry: registry).load(text: text, file: file)
        return try PlanRunner(registry: registry, options: options).run(plan)
    }

    /// Loads the plan file at `path`, runs it, and returns the report.
    ///
    /// - Parameters:
    ///   - path: The plan file's path.
    ///   - registry: The workloads, scenarios and strategies the plan may name.
    ///   - options: How to run; by default every trial in this process.
    /// - Returns: The report of every trial.
    /// - Throws: An error naming the file, key and line when the plan cannot be read or is invalid.
    public static func run(
        file path: String, registry: StressRegistry, options: RunOptions = RunOptions(isolation: .inProcess)
    ) throws -> RunReport {
        let plan = try PlanLoader(registry: registry).load(file: path)
        return try PlanRunner(registry: registry, options: options).run(plan)
    }
}
