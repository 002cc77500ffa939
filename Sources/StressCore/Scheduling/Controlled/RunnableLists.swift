/// The runnable workers, in order, as the policy is given them: one copy
/// for each worker that decides (and one for decisions made by no worker),
/// each on a cache line of its own, rebuilt from the ``StatusBoard`` by a
/// decision only when the board's version changed since that copy was made.
///
/// Why a copy each: the list goes to the policy as an array, which Swift
/// retains for the call and releases after it, an atomic increment and
/// decrement of the array's reference count. With one list for all, both
/// CPUs of a hand-off wrote that count at every decision and its line went
/// back and forth between them; with a copy each, a worker's decisions
/// touch only its own copy, which stays in its CPU's cache. Every copy is
/// made from the same board, so the policy sees the same workers either way.
struct RunnableLists {
    /// One decider's copy, and the board's version it was made at.
    struct List {
        var workers: [Int]
        var version = UInt64.max
    }

    private let base: UnsafeMutableRawPointer
    private let count: Int
    /// Where a list's workers lie in it (a stored constant: a static one
    /// is initialized lazily, a call at every use).
    private let workersOffset: Int
    private static let stride = 64

    /// Lists for deciders `0..<deciders`, each with room for `workers` workers.
    init(deciders: Int, workers: Int) {
        count = deciders
        workersOffset = MemoryLayout<List>.offset(of: \List.workers) ?? 0
        base = .allocate(byteCount: deciders * Self.stride, alignment: 64)
        for d in 0..<deciders {
            var list = List(workers: [])
            list.workers.reserveCapacity(workers)
            (base + d * Self.stride).initializeMemory(as: List.self, to: list)
        }
    }

    /// Decider `decider`'s list, in place.
    func callAsFunction(_ decider: Int) -> UnsafeMutablePointer<List> {
        (base + decider * Self.stride).assumingMemoryBound(to: List.self)
    }

    /// Decider `decider`'s list of workers itself, in place: for a move out
    /// and back around the policy's call (see
    /// ``ControlledScheduler/fallbackChoice(current:oldest:late:)``).
    func workers(_ decider: Int) -> UnsafeMutablePointer<[Int]> {
        (UnsafeMutableRawPointer(self(decider)) + workersOffset).assumingMemoryBound(to: [Int].self)
    }

    /// Frees the lists; not used after.
    func deallocate() {
        for d in 0..<count { self(d).deinitialize(count: 1) }
        base.deallocate()
    }
}
