#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Foundation

/// Where in an operation a fuzz point is.
public enum FuzzPoint: UInt64, Sendable {
    /// As an operation begins, before its first step.
    case operationStart = 1
    /// Before asking for a critical section: a lock's acquire, a queue's submit,
    /// the `await` that hops to an actor.
    case beforeAcquire
    /// Just inside a critical section: after the lock is taken, on entry to a
    /// queue's block or an actor's isolated region.
    case afterAcquire
    /// Inside, just before leaving: before the unlock, at a block's or isolated
    /// region's exit.
    case beforeRelease
    /// Just after leaving: after the unlock, or when the caller resumes.
    case afterRelease
    /// As an operation ends, after its last step.
    case operationEnd
    /// Where a workload calls ``OpFrame/fuzzPoint()``.
    case user
    /// Between two steps of a multi-step operation.
    case betweenSteps
}

/// What a fuzz point decided.
enum Perturbation: Equatable, Sendable {
    case none
    case yield
    case spin(UInt64)
    case sleep(UInt64)
}

/// One worker's fuzzer. Every decision is a pure function of (worker seed, index
/// of the point on this worker), from a counter-based generator, so the same seed
/// makes the same decisions however the OS interleaves the threads. Lives in the
/// worker's frame: checking whether it is active is a branch on a worker-local
/// flag, nothing shared.
struct Fuzzer: Sendable {
    /// False for profile `off`: every point is then one predictable branch.
    let active: Bool
    private let settings: FuzzSettings
    private let seed: UInt64
    private let thread: Int
    private let isVictim: Bool
    private let shared: FuzzShared?
    /// Where the worker publishes its site: a pause the fuzzer makes is
    /// published as `fuzzing` while it lasts, so the watchdog never takes
    /// the harness's own pause for a stall of the code under test.
    private let probe: SiteProbe
    /// Points this worker has passed (the counter of the generator).
    private(set) var index: UInt64 = 0
    private var starvedNs: UInt64 = 0
    private var startNs: UInt64 = 0

    static let off = Fuzzer(settings: FuzzSettings(.off), seed: 0, thread: 0, threads: 1, shared: nil, probe: .detached)

    init(settings: FuzzSettings, seed: UInt64, thread: Int, threads: Int, shared: FuzzShared?, probe: SiteProbe) {
        self.settings = settings
        self.probe = probe
        active = settings.isActive
        self.seed = SplitMix64.derive(seed, 0xF022 &+ UInt64(thread))
        self.thread = thread
        isVictim = settings.starveProbability > 0 && Int(SplitMix64.derive(seed, 0x5EED) % UInt64(threads)) == thread
        self.shared = shared
    }

    /// The `n`-th uniform draw in [0, 1) of this worker's stream for point `i`.
    @inline(__always)
    private func uniform(_ i: UInt64, _ n: UInt64) -> Double {
        Double(SplitMix64.mix(seed ^ SplitMix64.mix(i &* 8 &+ n)) >> 11) * 0x1p-53
    }

    private func logUniform(_ u: Double, _ lo: UInt64, _ hi: UInt64) -> UInt64 {
        guard hi > lo else { return lo }
        return UInt64(exp(log(Double(lo)) + u * (log(Double(hi)) - log(Double(lo)))))
    }

    /// The decision at the next point (advances the counter). Pure apart from the
    /// starvation cap, which depends on this worker's own elapsed time.
    mutating func decide() -> Perturbation {
        let i = index
        index &+= 1
        if isVictim && uniform(i, 0) < settings.starveProbability {
            let now = MonotonicClock.now()
            if startNs == 0 { startNs = now }
            let hold = logUniform(uniform(i, 1), settings.starveMinNanoseconds, settings.starveMaxNanoseconds)
            if Double(starvedNs + hold) <= settings.starveShare * Double(now &- startNs) {
                starvedNs += hold
                return .sleep(hold)
            }
        }
        if uniform(i, 2) < settings.sleepProbability {
            return .sleep(logUniform(uniform(i, 3), settings.sleepMinNanoseconds, settings.sleepMaxNanoseconds))
        }
        if uniform(i, 4) < settings.spinProbability {
            return .spin(logUniform(uniform(i, 5), settings.spinMinNanoseconds, settings.spinMaxNanoseconds))
        }
        if uniform(i, 6) < settings.yieldProbability { return .yield }
        return .none
    }

    /// A fuzz point on an OS thread: decide, then block, spin or yield right
    /// here (after waiting for higher-priority workers, under PCT).
    mutating func hit(_ point: FuzzPoint) {
        if let shared, settings.pctDepth > 0 { paused { shared.pctPoint(thread) } }
        perform(decide())
    }

    /// Performs `p`, published as a fuzz pause when it takes time.
    private func perform(_ p: Perturbation) {
        switch p {
        case .none, .yield: Self.perform(p)
        case .spin, .sleep: paused { Self.perform(p) }
        }
    }

    /// Runs `body` with the worker's site published as `fuzzing`, then puts
    /// the site it had back.
    @inline(__always)
    private func paused(_ body: () -> Void) {
        let site = probe.current()
        probe.publish(SiteWord(site: site.site ?? -1, phase: .fuzzing))
        body()
        probe.publish(site)
    }

    /// A fuzz point inside an actor's isolated region: the same perturbations,
    /// blocking the actor's thread as a slow actor method would. PCT only
    /// counts the point here: waiting for other workers while holding the
    /// actor would stall the pool threads they need.
    mutating func hitIsolated(_ point: FuzzPoint) {
        if let shared, settings.pctDepth > 0 { shared.pctCount() }
        perform(decide())
    }

    /// Decides the next point now, to be performed later (see ``NestedHops``).
    mutating func decideNext() -> Perturbation {
        if let shared, settings.pctDepth > 0 { shared.pctCount() }
        return decide()
    }

    static func perform(_ p: Perturbation) {
        switch p {
        case .none: break
        case .yield: sched_yield()
        case .spin(let ns): spin(ns)
        case .sleep(let ns): MonotonicClock.sleep(nanoseconds: ns)
        }
    }

    /// A fuzz point in a task, outside any isolated region: yields and sleeps
    /// suspend the task instead of blocking the pool thread, and so does a PCT
    /// wait for higher-priority workers.
    mutating func hitInTask(_ point: FuzzPoint) async {
        let site = probe.current()
        let pause = SiteWord(site: site.site ?? -1, phase: .fuzzing)
        if let shared, settings.pctDepth > 0 {
            probe.publish(pause)
            await shared.pctPointInTask(thread)
            probe.publish(site)
        }
        switch decide() {
        case .none: break
        case .yield: await Task.yield()
        case .spin(let ns):
            probe.publish(pause)
            Self.spin(ns)
            probe.publish(site)
        case .sleep(let ns):
            probe.publish(pause)
            try? await Task.sleep(nanoseconds: ns)
            probe.publish(site)
        }
    }

    /// The seeded delay after the start barrier.
    func stagger() -> UInt64 {
        settings.staggerMaxNanoseconds == 0 ? 0 : UInt64(uniform(UInt64.max, 7) * Double(settings.staggerMaxNanoseconds))
    }

    /// The seeded delay before this worker's role in scenario round `round`
    /// (a function of the seed, the worker and the round, like every decision).
    func stagger(round: Int) -> UInt64 {
        guard settings.staggerMaxNanoseconds > 0 else { return 0 }
        return UInt64(Double(SplitMix64.mix(seed ^ SplitMix64.mix(0x5_7A66E2 &+ UInt64(round))) >> 11) * 0x1p-53
                      * Double(settings.staggerMaxNanoseconds))
    }

    /// Waits `ns` for a round's stagger, published as a fuzz pause: a spin
    /// below 100 µs (a sleep that short overshoots by tens of microseconds),
    /// a sleep above.
    func pause(nanoseconds ns: UInt64) {
        guard ns > 0 else { return }
        paused { ns < 100_000 ? Self.spin(ns) : MonotonicClock.sleep(nanoseconds: ns) }
    }

    /// Busy-waits about `ns` nanoseconds.
    static func spin(_ ns: UInt64) {
        let until = MonotonicClock.now() &+ ns
        while MonotonicClock.now() < until { stress_cpu_relax() }
    }
}

/// The part of fuzzing the workers share: soft PCT's priorities and change
/// points. Touched only when PCT is on.
final class FuzzShared: @unchecked Sendable {
    // @unchecked: priorities and the hit counter are raw words read and written
    // with relaxed atomics by every worker (a perturbation, not a measurement);
    // change points are written once by the coordinator before the measured
    // window's barrier and only read afterwards.
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

    /// At a point: count it, demote the top worker at a change point, then wait
    /// (capped) while a runnable worker has a higher priority.
    func pctPoint(_ me: Int) {
        pctCount()
        let mine = stress_load_relaxed(priorities[me])
        let deadline = MonotonicClock.now() &+ waitCapNs
        while higherRunnable(than: mine, me) && MonotonicClock.now() < deadline { sched_yield() }
    }

    /// The same for a task worker: it waits by yielding its pool thread to
    /// other tasks rather than blocking it.
    func pctPointInTask(_ me: Int) async {
        pctCount()
        let mine = stress_load_relaxed(priorities[me])
        let deadline = MonotonicClock.now() &+ waitCapNs
        while higherRunnable(than: mine, me) && MonotonicClock.now() < deadline { await Task.yield() }
    }

    /// Counts a point, and demotes the top worker when the count reaches a change point.
    func pctCount() {
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

/// How many fuzz points soft PCT spreads its change points over: the rate seen
/// during warm-up, scaled to the measured window (or to the operations left);
/// without a warm-up, a guess of eight points per operation.
enum PCTCalibration {
    /// The warm-up a PCT trial gets when its plan gives less: long enough to
    /// count thousands of fuzz points for the calibration.
    static let warmupNs: UInt64 = 20_000_000

    /// Before the measured window: spreads the change points over the
    /// window (nothing without PCT, and nothing for a scenario whose PCT is
    /// per round: each round then gets its own), and prepares a scenario's
    /// measured rounds.
    static func calibrate(_ shared: FuzzShared?, board: SiteBoard, settings: TrialSettings, rounds: RoundProgram?) {
        if let shared, rounds == nil || settings.fuzz.pctScope == .trial {
            shared.calibrate(expectedHits: expectedHits(shared, board: board, settings: settings))
        }
        rounds?.prepare(measured: true)
    }

    static func expectedHits(_ shared: FuzzShared, board: SiteBoard, settings: TrialSettings) -> UInt64 {
        let hits = Double(shared.hitCount)
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
