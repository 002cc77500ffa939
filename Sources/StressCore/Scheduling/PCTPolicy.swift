/// `pct`: Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010).
///
/// Every worker gets a seeded priority and `depth − 1` change points demote
/// the running one. On the harness executor and under controlled scheduling
/// that is PCT proper: the highest-priority ready worker runs. Under
/// control the change points are spread over the execution's measured
/// length (``ExecutionScheduler/expectLength(_:)``), which is what PCT's
/// bound needs: a bug of depth d among n workers and k scheduling points is
/// found with probability at least 1/(n·k^(d−1)). Free-running thread
/// workers get soft PCT (``SoftPCT``): at a fuzz point a worker waits,
/// capped, while a higher-priority worker is runnable. The OS still
/// schedules them, so the bound does not apply there.
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
    private var seed: UInt64
    /// The trial's workers (the priorities' scale).
    private let threads: Int
    /// The depth searched, and whether the settings starve a worker: what
    /// the draws are made from besides the seed.
    private let depth: Int
    private let starves: Bool

    init(settings: FuzzSettings, seed: UInt64, workers: Int) {
        self.seed = seed
        threads = workers
        // A plan's `pct_depth` is the depth searched (2: one change point,
        // the setting PCT's bound 1/(n·k) is stated for); none: the default.
        depth = settings.pctDepth > 0 ? settings.pctDepth : PCTPolicy.defaultDepth
        starves = settings.starveProbability > 0
        draws = SchedulingDraws(seed: seed, workers: workers, pctDepth: depth, starves: starves)
        lowest = workers
    }

    mutating func restart(seed: UInt64) -> Bool {
        self.seed = seed
        draws.redraw(seed: seed, workers: threads, pctDepth: depth, starves: starves)
        lowest = threads
        picks = 0
        last = -1
        return true
    }

    mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int {
        picks &+= 1
        if let next = draws.changePoints.first, next <= picks { passChangePoints() }
        // The first of the highest priority (queue workers' may tie), as
        // `max(by:)` finds it.
        var chosen = oldest
        if !runnable.isEmpty {
            chosen = runnable[0]
            var highest = draws.priority[chosen]
            for i in 1..<runnable.count where highest < draws.priority[runnable[i]] {
                chosen = runnable[i]
                highest = draws.priority[chosen]
            }
        }
        last = chosen
        return chosen
    }

    /// At each change point up to this pick, the worker that ran last drops
    /// below every other. Apart, and never inlined: with the priorities
    /// written in ``nextWorker(among:oldest:now:parallel:)`` itself, every
    /// pick first asked the runtime whether the array was shared, where a
    /// change point comes a few times an execution.
    @inline(never)
    private mutating func passChangePoints() {
        while let next = draws.changePoints.first, next <= picks {
            draws.changePoints.removeFirst()
            if last >= 0 {
                lowest -= 1
                draws.priority[last] = lowest
            }
        }
    }

    /// The queue workers get seeded priorities among the thread workers'
    /// (from a stream of their own: the seed's other draws stay put), so
    /// that a block submitted with `async` runs sometimes before and
    /// sometimes after the submitter's next steps, seed by seed. The slots
    /// before `first` keep theirs: the workers', and the main thread's (the
    /// rank of the harness executor's queue of outside jobs), so a trial that
    /// submits no block is scheduled as it always was.
    mutating func admitQueueWorkers(first: Int, count: Int) {
        var random = SplitMix64(seed: SplitMix64.derive(seed, 0x0E0E_0A5C))
        draws.priority.removeLast(Swift.max(0, draws.priority.count - first))
        while draws.priority.count < first { draws.priority.append(Int.max) }
        // Drawn from the range four queue workers had, so that a seed ranks
        // its first queues' workers as it always did.
        for _ in 0..<count { draws.priority.append(threads + random.next(below: threads + Swift.min(count, 4))) }
    }

    /// Spreads the change points over `length` picks (the same draws, so the
    /// seed's priorities and later choices do not move). Change points past
    /// the execution's end would never fire, and PCT's bound would not hold.
    /// A timed waiter holds a priority like any worker: its wait times out
    /// when it outranks every runnable worker (PCT's "the highest priority
    /// runs"), so a seed that ranks it high finds the timeout early.
    mutating func nextWorker(among runnable: [Int], orTimeOut waiter: Int, oldest: Int) -> Int {
        let chosen = nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
        guard draws.priority[waiter] > draws.priority[chosen] else { return chosen }
        last = waiter
        return waiter
    }

    mutating func expectLength(_ length: Int) {
        // An epoch-long execution keeps the change points its seed has
        // always had (over `1...2,000`, where a point at pick 1 is idle):
        // long trials' schedules, and the shipped plans' results, stay put.
        guard UInt64(length) != SchedulingDraws.pctHorizon else { return }
        draws.spreadChangePoints(within: UInt64(max(2, length)), after: picks)
    }
}
