/// `off`: no perturbation, the plain stress loop. Thread fuzz points cost
/// one branch on a worker-local flag each; the harness executor runs jobs
/// first come, first served.
struct OffPolicy: SchedulingPolicy {
    var name: String { "off" }

    func configure(_ settings: inout FuzzSettings) {}

    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        FirstComeScheduler()
    }
}

/// Runs the worker that has waited longest, never delays: the order the
/// jobs were enqueued in.
struct FirstComeScheduler: ExecutionScheduler {
    mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int { oldest }

    /// Nothing to draw: every execution is first come, first served.
    mutating func restart(seed: UInt64) -> Bool { true }
}
