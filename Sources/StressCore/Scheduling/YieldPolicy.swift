/// `yield`: `sched_yield` (or `Task.yield()` in tasks) at 10% of points,
/// after a start stagger of up to 100 µs; the harness executor walks among
/// the ready workers.
struct YieldPolicy: SchedulingPolicy {
    var name: String { "yield" }

    func configure(_ settings: inout FuzzSettings) {
        settings.yieldProbability = 0.1
        settings.staggerMaxNanoseconds = 100_000
    }

    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        RandomWalkScheduler(settings: settings, seed: seed, workers: workers, stay: 0.5)
    }
}
