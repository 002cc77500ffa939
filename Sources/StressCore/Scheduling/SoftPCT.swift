#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport

/// Soft PCT for workers the OS schedules: the priorities and change points
/// their fuzz points share. Made only when the settings give a PCT depth.
final class SoftPCT: FuzzCoordinator, @unchecked Sendable {
    // @unchecked: priorities and the hit counter are raw words read and written
    // with relaxed atomics by every worker (a perturbation, not a measurement);
    // change points are written once, before the measured window's barrier,
    // by the thread that opens it, and only read afterwards.
    private let board: SiteBoard
    private let priorities: CacheLineArray<UInt64>
    private let hits = UnsafeMutablePointer<UInt64>.allocate(capacity: 16)
    /// The fuzz points (counted from the last calibration or round start) at
    /// which the top worker is demoted; sorted.
    private(set) var changePoints: [UInt64] = []
    /// Per-round PCT: fuzz points counted over the rounds so far, and the rounds.
    private var roundPoints: UInt64 = 0
    private var rounds: UInt64 = 0
    private let workers: Int
    private let waitCapNs: UInt64
    private let depth: Int
    private let seed: UInt64

    init(board: SiteBoard, settings: FuzzSettings, seed: UInt64) {
        self.board = board
        workers = board.workers
        waitCapNs = settings.pctWaitCapNanoseconds
        depth = settings.pctDepth
        self.seed = seed
        priorities = CacheLineArray(count: board.workers)
        hits.initialize(repeating: 0, count: 16)
        // A seeded random permutation: worker w gets priority order[w] (higher runs first).
        var rng = SplitMix64(seed: SplitMix64.derive(seed, 0x9C7))
        var order = Array(0..<workers)
        order.shuffle(using: &rng)
        for w in 0..<workers { stress_store_relaxed(priorities[w], UInt64(order[w] + depth + 1)) }
    }

    deinit {
        hits.deallocate()
        priorities.deallocate()
    }

    /// Sets d−1 change points uniformly over `expectedHits` points and restarts
    /// the count (called by the coordinator once, before the measured window).
    func calibrate(expectedHits: UInt64) {
        var rng = SplitMix64(seed: SplitMix64.derive(seed, 0xC4A1))
        let k = Swift.max(expectedHits, 1)
        changePoints = (0..<Swift.max(0, depth - 1)).map { _ in rng.next() % k }.sorted()
        stress_store_relaxed(hits, 0)
    }

    /// Per-round PCT (scenarios): a fresh seeded priority order and d−1
    /// fresh change points for round `round`, spread over the round's own
    /// count of fuzz points. That count is known only once the round has run,
    /// and the rounds of one scenario pass about the same points (a role
    /// that branches passes more in some rounds than in others), so it is
    /// taken as the mean over the rounds so far,
    /// warm-up rounds included: 8 before the first. Called by the one worker
    /// that decides at the round barrier, while the others wait there.
    func beginRound(_ round: Int) {
        if round > 0 {
            roundPoints &+= stress_load_relaxed(hits)
            rounds &+= 1
        }
        let perRound = rounds > 0 ? Swift.max(1, (roundPoints + rounds / 2) / rounds) : 8
        var rng = SplitMix64(seed: SplitMix64.derive(seed, 0xA0C7 &+ UInt64(round)))
        var order = Array(0..<workers)
        order.shuffle(using: &rng)
        for w in 0..<workers { stress_store_relaxed(priorities[w], UInt64(order[w] + depth + 1)) }
        changePoints = (0..<Swift.max(0, depth - 1)).map { _ in rng.next() % perRound }.sorted()
        stress_store_relaxed(hits, 0)
    }

    /// Each worker's current priority (higher runs first).
    var priorityOrder: [UInt64] { (0..<workers).map { stress_load_relaxed(priorities[$0]) } }

    /// Points counted so far (used to calibrate from the warm-up).
    var hitCount: UInt64 { stress_load_relaxed(hits) }

    /// The warm-up a PCT trial gets when its plan gives less: long enough to
    /// count thousands of fuzz points for the calibration.
    static let warmupNs: UInt64 = 20_000_000

    /// At a point: count it, demote the top worker at a change point, then wait
    /// (capped) while a runnable worker has a higher priority.
    func point(_ me: Int) {
        count()
        let mine = stress_load_relaxed(priorities[me])
        let deadline = MonotonicClock.now() &+ waitCapNs
        while higherRunnable(than: mine, me) && MonotonicClock.now() < deadline { sched_yield() }
    }

    /// The same for a task worker: it waits by yielding its pool thread to
    /// other tasks rather than blocking it.
    func pointInTask(_ me: Int) async {
        count()
        let mine = stress_load_relaxed(priorities[me])
        let deadline = MonotonicClock.now() &+ waitCapNs
        while higherRunnable(than: mine, me) && MonotonicClock.now() < deadline { await Task.yield() }
    }

    /// Counts a point, and demotes the top worker when the count reaches a change point.
    func count() {
        let n = stress_fetch_increment(hits)
        if changePoints.contains(n) { demoteTop() }
    }

    private func higherRunnable(than mine: UInt64, _ me: Int) -> Bool {
        for w in 0..<workers where w != me {
            guard stress_load_relaxed(priorities[w]) > mine else { continue }
            let phase = board.read(w).site.phase
            if !phase.isWaiting && phase != .finished { return true }
        }
        return false
    }

    private func demoteTop() {
        var top = 0, topPriority: UInt64 = 0, lowest = UInt64.max
        for w in 0..<workers {
            let p = stress_load_relaxed(priorities[w])
            if p > topPriority { topPriority = p; top = w }
            lowest = Swift.min(lowest, p)
        }
        stress_store_relaxed(priorities[top], lowest > 0 ? lowest - 1 : 0)
    }
}

/// Before the measured window: soft PCT spreads its change points over the
/// window's fuzz points (counted from the warm-up), except in a scenario
/// whose PCT is per round: each round then gets its own.
extension SoftPCT {
    func beginMeasuredWindow(board: SiteBoard, settings: TrialSettings, scenario: Bool) {
        guard !scenario || settings.fuzz.pctScope == .trial else { return }
        calibrate(expectedHits: expectedHits(board: board, settings: settings))
    }

    /// How many fuzz points the window will pass: the rate seen during
    /// warm-up, scaled to the measured window (or to the operations left);
    /// without a warm-up, a guess of eight points per operation.
    func expectedHits(board: SiteBoard, settings: TrialSettings) -> UInt64 {
        let hits = Double(hitCount)
        let warmupOps = Double((0..<board.workers).reduce(UInt64(0)) { $0 + board.read($1).completed })
        let perOp = warmupOps > 0 && hits > 0 ? hits / warmupOps : 8
        switch settings.stop {
        case .operations(let n):
            return UInt64(perOp * Double(n * settings.threads))
        case .duration(let ns):
            guard settings.warmupNs > 0, hits > 0 else { return UInt64(perOp * 1e6 * Double(ns) / 1e9) }
            return UInt64(hits * Double(ns) / Double(settings.warmupNs))
        }
    }
}
