/// `portfolio`: the repetitions of an experiment take turns with chaos,
/// pct, yield and light (``FuzzSettings/forRepetition(_:)``), so one plan
/// tries the strengths of each. Run unrotated, it is chaos.
struct PortfolioPolicy: SchedulingPolicy {
    var name: String { "portfolio" }

    var rotation: [FuzzProfile] { [.chaos, .pct, .yield, .light] }

    func configure(_ settings: inout FuzzSettings) {
        ChaosPolicy().configure(&settings)
    }

    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        ChaosPolicy().makeScheduler(settings: settings, seed: seed, workers: workers)
    }
}
