import StressKit

/// The workloads and scenarios that break on purpose, for the harness's own
/// tests of crashes, hangs, deadlocks and stalled rounds. They are not
/// built-ins: `stressbench` does not know them. The tests register them in
/// process (``registry``) and run them in `stressbench-fixtures`, the
/// shipped command line with them added, as the parent and as the trial
/// child process.
public enum TestFixtures {
    /// Adds `_fault`, `_hang-in-round`, `_stuck-in-round` and
    /// `_unnamed-lock-order` to `registry`.
    /// - Parameter registry: The registry to add them to, usually a copy of
    ///   `StressRegistry.builtIn`.
    public static func register(in registry: inout StressRegistry) {
        registry.register(workload: FaultInjectionWorkload.self)
        registry.register(scenario: HangInRoundScenario.self)
        registry.register(scenario: StuckInRoundScenario.self)
        registry.register(scenario: UnnamedLockOrderScenario.self)
    }

    /// The built-ins with the fixtures added: what the tests load and run
    /// their plans against in process.
    public static var registry: StressRegistry {
        var registry = StressRegistry.builtIn
        register(in: &registry)
        return registry
    }
}
