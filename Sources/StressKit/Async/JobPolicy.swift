/// The harness executor's decisions at a job boundary: which worker's job runs
/// next, and whether it is first delayed. Pure and seeded: the same ready sets
/// in the same order get the same answers, which is what makes the
/// deterministic executor replayable. Lives inside the scheduler's lock.
///
/// The choice follows the trial's fuzz profile:
/// - `off`: first come, first served (the order jobs were enqueued);
/// - `pct`: PCT over jobs (Burckhardt et al.): every worker gets a random
///   priority, the highest-priority worker with a ready job runs, and at
///   `depth − 1` random change points the running worker drops to the lowest;
/// - the others: a random walk that keeps the last worker with probability
///   `stay` and otherwise picks uniformly among the ready ones; on the
///   parallel executor, also delays (the profile's spin and sleep
///   probabilities) and starvation windows for one victim worker.
struct JobPolicy {
    private let profile: FuzzProfile
    private let fuzz: FuzzSettings
    private var random: SplitMix64
    private let stay: Double
    /// PCT: each worker's priority (higher runs first) and the pick numbers
    /// at which the top worker is demoted.
    private var priority: [Int]
    private var changePoints: [UInt64]
    private var lowest: Int
    private(set) var picks: UInt64 = 0
    private var last = -1
    /// Starvation: the victim's jobs wait until this time (monotonic ns).
    private let victim: Int
    private var starvedUntil: UInt64 = 0
    private var starvedNs: UInt64 = 0
    private var startNs: UInt64 = 0

    /// How many picks PCT spreads its change points over: enough for the
    /// first few hundred operations of a handful of workers, where the async
    /// bugs of the examples live; later picks run with the final priorities.
    static let pctHorizon: UInt64 = 2_000

    init(fuzz: FuzzSettings, seed: UInt64, workers: Int) {
        profile = fuzz.profile
        self.fuzz = fuzz
        random = SplitMix64(seed: SplitMix64.derive(seed, 0x10B5))
        stay = fuzz.profile == .light ? 0.9 : 0.5
        var order = Array(0..<workers)
        for i in stride(from: workers - 1, to: 0, by: -1) {
            order.swapAt(i, random.next(below: i + 1))
        }
        // One more entry: the queue of global jobs (deterministic trials).
        priority = [Int](repeating: 0, count: workers + 1)
        for (rank, w) in order.enumerated() { priority[w] = workers + rank }
        // Global jobs (an actor's processing, a task resumed from outside)
        // run first: a worker spinning on `Task.yield` must not starve them.
        priority[workers] = Int.max
        lowest = workers
        let depth = max(fuzz.pctDepth, fuzz.profile == .pct ? 3 : 0)
        var points: [UInt64] = []
        for _ in 0..<max(0, depth - 1) { points.append(1 + UInt64(random.next(below: Int(Self.pctHorizon)))) }
        changePoints = points.sorted()
        victim = fuzz.starveProbability > 0 ? random.next(below: max(1, workers)) : -1
    }

    /// The worker whose job runs next, among `ready` (ascending worker
    /// indices, never empty); `oldest` is the worker whose queued job was
    /// enqueued first.
    mutating func pick(ready: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int {
        picks &+= 1
        let chosen: Int
        switch profile {
        case .off:
            chosen = oldest
        case .pct:
            while let next = changePoints.first, next <= picks {
                changePoints.removeFirst()
                if last >= 0 {
                    lowest -= 1
                    priority[last] = lowest
                }
            }
            chosen = ready.max { priority[$0] < priority[$1] } ?? oldest
        default:
            var candidates = ready
            if parallel, victim >= 0, now < starvedUntil, candidates.count > 1 {
                candidates.removeAll { $0 == victim }
            }
            if parallel {
                // First come, first served, unless the dice reorder.
                chosen = unit() < max(fuzz.yieldProbability * 2, 0.1)
                    ? candidates[random.next(below: candidates.count)]
                    : (candidates.contains(oldest) ? oldest : candidates[0])
            } else if candidates.contains(last), unit() < stay {
                chosen = last
            } else {
                chosen = candidates[random.next(below: candidates.count)]
            }
        }
        last = chosen
        return chosen
    }

    /// A delay before the chosen job runs (parallel executor only: on the
    /// deterministic one a delay changes nothing but the wall time).
    mutating func delay(for worker: Int, now: UInt64) -> Perturbation {
        guard profile != .off, profile != .pct else { return .none }
        if worker == victim, unit() < fuzz.starveProbability * 10 {
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

    private mutating func unit() -> Double { Double(random.next() >> 11) * 0x1p-53 }

    private mutating func between(_ lo: UInt64, _ hi: UInt64) -> UInt64 {
        hi > lo ? lo + random.next() % (hi - lo) : lo
    }
}
