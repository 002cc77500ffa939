import StressKit

/// The async examples' workloads, as `stressbench` registers them (and the
/// tests, to load `Plans/async.yaml`).
public enum AsyncExamples {
    /// Adds `bank-account`, `connection-pool`, `stream-relay` and `legacy-fetcher` to `registry`.
    public static func register(in registry: inout StressRegistry) {
        registry.register(workload: BankAccountWorkload.self)
        registry.register(workload: ConnectionPoolWorkload.self)
        registry.register(workload: StreamRelayWorkload.self)
        registry.register(workload: LegacyFetcherWorkload.self)
    }
}
