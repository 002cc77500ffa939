/// The seeded draws every executor scheduler starts with, in the order the
/// harness executor has always drawn them: a random priority order of the
/// workers, `depth − 1` PCT change points, then a starvation victim. Every
/// scheduler makes all of them, whichever it uses, so that a seed's choices
/// stay the same from one release to the next.
struct SchedulingDraws {
    /// The stream that goes on to make the scheduler's own decisions.
    var random: SplitMix64
    /// Each worker's priority (higher runs first); index `workers`, the
    /// queue of jobs from outside the workers (an actor's processing, a task
    /// resumed from outside), comes first of all: a worker spinning on
    /// `Task.yield` must not starve them.
    var priority: [Int]
    /// The pick numbers at which PCT demotes the running worker; sorted.
    var changePoints: [UInt64]
    /// The raw draws the change points come from, kept so that they can be
    /// spread again over another length (``changePoints(within:)``) without
    /// drawing anew: the rest of the stream, and so the seed's other
    /// choices, stay the same.
    let changeDraws: [UInt64]
    /// The worker a starving policy holds back, or -1.
    let victim: Int

    /// How many picks PCT spreads its change points over: enough for the
    /// first few hundred operations of a handful of workers, where the async
    /// bugs of the examples live; later picks run with the final priorities.
    static let pctHorizon: UInt64 = 2_000

    init(seed: UInt64, workers: Int, pctDepth: Int, starves: Bool) {
        random = SplitMix64(seed: SplitMix64.derive(seed, 0x10B5))
        var order = Array(0..<workers)
        for i in stride(from: workers - 1, to: 0, by: -1) {
            order.swapAt(i, random.next(below: i + 1))
        }
        priority = [Int](repeating: 0, count: workers + 1)
        for (rank, w) in order.enumerated() { priority[w] = workers + rank }
        priority[workers] = Int.max
        var draws: [UInt64] = []
        for _ in 0..<max(0, pctDepth - 1) { draws.append(random.next()) }
        changeDraws = draws
        changePoints = Self.spread(draws, over: Self.pctHorizon)
        victim = starves ? random.next(below: max(1, workers)) : -1
    }

    /// The change points spread uniformly over the picks of an execution of
    /// `length` picks where a demotion can change anything: `2...length`
    /// (a change point demotes the worker that ran since the pick before,
    /// and before pick 1 nobody has run). Sorted.
    func changePoints(within length: UInt64) -> [UInt64] {
        changeDraws.map { 2 + $0.multipliedFullWidth(by: max(1, length &- 1)).high }.sorted()
    }

    /// Raw draws as pick numbers in `1...length`, sorted: the scaling
    /// `SplitMix64.next(below:)` applies, so that over ``pctHorizon`` they
    /// are the change points a seed has always had.
    private static func spread(_ draws: [UInt64], over length: UInt64) -> [UInt64] {
        draws.map { 1 + $0.multipliedFullWidth(by: max(1, length)).high }.sorted()
    }
}
