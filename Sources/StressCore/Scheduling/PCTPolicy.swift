/// `pct`: Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010).
///
/// Every worker gets a seeded priority and `depth − 1` change points demote
/// the running one. On the harness executor that is PCT proper: the
/// highest-priority ready worker runs. Thread workers get soft PCT
/// (``SoftPCT``): at a fuzz point a worker waits, capped, while a
/// higher-priority worker is runnable. The OS still schedules them, so PCT's
/// probability bound does not apply there.
struct PCTPolicy: SchedulingPolicy {
    /// The depth when a plan gives none.
    static let defaultDepth = 3

    var name: String { "pct" }

    func configure(_ settings: inout FuzzSettings) {
        settings.pctDepth = Self.defaultDepth
        settings.yieldProbability = 0.01
        settings.staggerMaxNanoseconds = 100_000
    }

    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler {
        PCTScheduler(settings: settings, seed: seed, workers: workers)
    }
}

/// PCT over a ready set: the highest-priority runnable worker runs; at each
/// change point the worker that ran last drops below every other.
struct PCTScheduler: ExecutionScheduler {
    private var draws: SchedulingDraws
    private var lowest: Int
    private var picks: UInt64 = 0
    private var last = -1

    init(settings: FuzzSettings, seed: UInt64, workers: Int) {
        draws = SchedulingDraws(seed: seed, workers: workers, pctDepth: max(settings.pctDepth, PCTPolicy.defaultDepth),
                                starves: settings.starveProbability > 0)
        lowest = workers
    }

    mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int {
        picks &+= 1
        while let next = draws.changePoints.first, next <= picks {
            draws.changePoints.removeFirst()
            if last >= 0 {
                lowest -= 1
                draws.priority[last] = lowest
            }
        }
        let chosen = runnable.max { draws.priority[$0] < draws.priority[$1] } ?? oldest
        last = chosen
        return chosen
    }
}
