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
    /// spread again over another length (``spreadChangePoints(within:after:)``) without
    /// drawing anew: the rest of the stream, and so the seed's other
    /// choices, stay the same.
    private(set) var changeDraws: [UInt64]
    /// The worker a starving policy holds back, or -1.
    private(set) var victim: Int

    /// How many picks PCT spreads its change points over: enough for the
    /// first few hundred operations of a handful of workers, where the async
    /// bugs of the examples live; later picks run with the final priorities.
    static let pctHorizon: UInt64 = 2_000

    init(seed: UInt64, workers: Int, pctDepth: Int, starves: Bool) {
        // Room for the queue workers (``QueueBook/slots``) that a controlled
        // trial admits next, so that admitting them does not move the
        // priorities.
        random = SplitMix64(seed: 0)
        priority = []
        priority.reserveCapacity(workers + 1 + QueueBook.slots)
        let changes = max(0, pctDepth - 1)
        changeDraws = []
        changeDraws.reserveCapacity(changes)
        changePoints = []
        changePoints.reserveCapacity(changes)
        victim = -1
        redraw(seed: seed, workers: workers, pctDepth: pctDepth, starves: starves)
    }

    /// Draws everything anew from `seed`, in place: what ``init(seed:workers:pctDepth:starves:)``
    /// makes from the same arguments, in the arrays already made. A
    /// controlled scenario starts a new execution every round, under the
    /// scheduler's state lock (see ``ExecutionScheduler/restart(seed:)``):
    /// this makes no array (the shuffle's order lives on the stack, the
    /// change points are sorted in place). The draws, and their order, are
    /// what they have always been.
    mutating func redraw(seed: UInt64, workers: Int, pctDepth: Int, starves: Bool) {
        random = SplitMix64(seed: SplitMix64.derive(seed, 0x10B5))
        priority.removeAll(keepingCapacity: true)
        priority.append(contentsOf: repeatElement(0, count: workers + 1))
        if workers > 0 {
            withUnsafeTemporaryAllocation(of: Int.self, capacity: workers) { order in
                for i in 0..<workers { order[i] = i }
                for i in stride(from: workers - 1, to: 0, by: -1) {
                    order.swapAt(i, random.next(below: i + 1))
                }
                for rank in 0..<workers { priority[order[rank]] = workers + rank }
            }
        }
        priority[workers] = Int.max
        changeDraws.removeAll(keepingCapacity: true)
        changePoints.removeAll(keepingCapacity: true)
        for _ in 0..<max(0, pctDepth - 1) {
            let draw = random.next()
            changeDraws.append(draw)
            // Over the horizon, the change points are the raw draws scaled
            // as `SplitMix64.next(below:)` scales them into `1...pctHorizon`.
            changePoints.append(1 + draw.multipliedFullWidth(by: Self.pctHorizon).high)
        }
        changePoints.sort()
        victim = starves ? random.next(below: max(1, workers)) : -1
    }

    /// Sets ``changePoints`` to the draws spread uniformly over the picks of
    /// an execution of `length` picks where a demotion can change anything,
    /// `2...length` (a change point demotes the worker that ran since the
    /// pick before, and before pick 1 nobody has run), without those at or
    /// before pick `done`; sorted. In place: PCT's
    /// ``PCTScheduler/expectLength(_:)`` does this at the start of every
    /// controlled round.
    mutating func spreadChangePoints(within length: UInt64, after done: UInt64) {
        changePoints.removeAll(keepingCapacity: true)
        for draw in changeDraws {
            let point = 2 + draw.multipliedFullWidth(by: max(1, length &- 1)).high
            if point > done { changePoints.append(point) }
        }
        changePoints.sort()
    }
}
