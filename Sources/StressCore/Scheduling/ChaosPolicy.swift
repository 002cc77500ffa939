/// `chaos`: everything, rr-chaos style. Yields (5%), spins of 50 ns to
/// 50 µs (5%), sleeps of 10 µs to 2 ms (0.2%), starvation of one victim
/// worker (holds of 1 to 5 ms, at most 10% of the run), and a start stagger
/// of up to 1 ms; the harness executor walks among the ready workers and,
/// when it runs them in parallel, delays and starves jobs too.
struct ChaosPolicy: SchedulingPolicy {
    var name: String { "chaos" }

    func configure(_ settings: inout FuzzSettings) {
        settings.yieldProbability = 0.05
        settings.spinProbability = 0.05
        settings.sleepProbability = 0.002
        settings.starveProbability = 0.001
        settings.staggerMaxNanoseconds = 1_000_000
    }

    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        RandomWalkScheduler(settings: settings, seed: seed, workers: workers, stay: 0.5)
    }
}
