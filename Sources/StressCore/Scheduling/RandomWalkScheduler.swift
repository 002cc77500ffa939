/// The harness executor's choice under `light`, `yield` and `chaos`.
///
/// One at a time (the deterministic executor), a random walk: it keeps the
/// last worker with probability `stay` and otherwise picks uniformly among
/// the ready ones. In parallel, first come first served unless the dice
/// reorder, with delays (the settings' spin and sleep probabilities) and
/// starvation windows for one victim worker.
struct RandomWalkScheduler: ExecutionScheduler {
    private let fuzz: FuzzSettings
    private var draws: SchedulingDraws
    private let stay: Double
    private var last = -1
    /// Starvation: the victim's jobs wait until this time (monotonic ns).
    private var starvedUntil: UInt64 = 0
    private var starvedNs: UInt64 = 0
    private var startNs: UInt64 = 0
    /// Timed waits' timeouts under control draw from a stream of their own,
    /// so that a trial with no timed wait makes the choices it always made.
    private var timeouts: SplitMix64
    private let timeoutProbability: Double

    /// The trial's workers.
    private let workers: Int

    init(settings: FuzzSettings, seed: UInt64, workers: Int, stay: Double) {
        fuzz = settings
        self.workers = workers
        draws = SchedulingDraws(seed: seed, workers: workers, pctDepth: settings.pctDepth,
                                starves: settings.starveProbability > 0)
        self.stay = stay
        timeouts = SplitMix64(seed: SplitMix64.derive(seed, 0x7133_0075))
        // A small chance per decision (the policy's yield probability, at
        // least 2%, at most 25%): most waits are signalled, some time out
        // mid-way.
        timeoutProbability = min(max(settings.yieldProbability, 0.02), 0.25)
    }

    mutating func restart(seed: UInt64) -> Bool {
        draws.redraw(seed: seed, workers: workers, pctDepth: fuzz.pctDepth, starves: fuzz.starveProbability > 0)
        last = -1
        starvedUntil = 0
        starvedNs = 0
        startNs = 0
        timeouts = SplitMix64(seed: SplitMix64.derive(seed, 0x7133_0075))
        return true
    }

    mutating func nextWorker(among runnable: [Int], orTimeOut waiter: Int, oldest: Int) -> Int {
        if Double(timeouts.next() >> 11) * 0x1p-53 < timeoutProbability {
            last = waiter
            return waiter
        }
        return nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
    }

    mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int {
        var candidates = runnable
        let victim = draws.victim
        if parallel, victim >= 0, now < starvedUntil, candidates.count > 1 {
            candidates.removeAll { $0 == victim }
        }
        let chosen: Int
        if parallel {
            // First come, first served, unless the dice reorder.
            chosen = unit() < max(fuzz.yieldProbability * 2, 0.1)
                ? candidates[draws.random.next(below: candidates.count)]
                : (candidates.contains(oldest) ? oldest : candidates[0])
        } else if candidates.contains(last), unit() < stay {
            chosen = last
        } else {
            chosen = candidates[draws.random.next(below: candidates.count)]
        }
        last = chosen
        return chosen
    }

    mutating func delay(for worker: Int, now: UInt64) -> Perturbation {
        if worker == draws.victim, unit() < fuzz.starveProbability * 10 {
            if startNs == 0 { startNs = now }
            let hold = between(fuzz.starveMinNanoseconds, fuzz.starveMaxNanoseconds)
            if Double(starvedNs + hold) <= fuzz.starveShare * Double(now &- startNs) {
                starvedNs += hold
                starvedUntil = now + hold
            }
        }
        let u = unit()
        if u < fuzz.sleepProbability {
            return .sleep(between(fuzz.sleepMinNanoseconds, fuzz.sleepMaxNanoseconds))
        }
        if u < fuzz.sleepProbability + fuzz.spinProbability {
            return .spin(between(fuzz.spinMinNanoseconds, fuzz.spinMaxNanoseconds))
        }
        return .none
    }

    private mutating func unit() -> Double { Double(draws.random.next() >> 11) * 0x1p-53 }

    private mutating func between(_ lo: UInt64, _ hi: UInt64) -> UInt64 {
        hi > lo ? lo + draws.random.next() % (hi - lo) : lo
    }
}
