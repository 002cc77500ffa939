import StressKit

/// The own-code examples' workloads, as `stressbench` registers them (and the
/// tests, to load `Plans/own-code.yaml`).
public enum OwnCodeExamples {
    /// Adds `job-board`, `image-store`, `ledger` and `settings-cache`, and the
    /// scenario `warm-cache`, to `registry`.
    public static func register(in registry: inout StressRegistry) {
        registry.register(workload: JobBoardWorkload.self)
        registry.register(workload: ImageStoreWorkload.self)
        registry.register(workload: LedgerWorkload.self)
        registry.register(scenario: WarmCacheScenario.self)
        registry.register(workload: SettingsCacheWorkload.self)
    }
}
