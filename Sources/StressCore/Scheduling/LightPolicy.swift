/// `light`: rare short busy spins (1% of points, 50 ns to 2 µs), which
/// barely change throughput; the harness executor walks among the ready
/// workers, staying with the last one nine times in ten.
struct LightPolicy: SchedulingPolicy {
    var name: String { "light" }

    func configure(_ settings: inout FuzzSettings) {
        settings.spinProbability = 0.01
        settings.spinMaxNanoseconds = 2_000
    }

    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        RandomWalkScheduler(settings: settings, seed: seed, workers: workers, stay: 0.9)
    }
}
