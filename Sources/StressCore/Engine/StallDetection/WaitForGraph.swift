import CStressSupport

/// Who waits for whom among a trial's participants, built from what they
/// publish: an edge from a participant to each one holding what it waits for.
///
/// Two sources: the site words (a worker waiting for or inside one of the
/// strategy's resources, published by the engine around every step) and the
/// keyed words (a harness-aware primitive of the code under test: its
/// address, published by the primitive itself; and the resources a worker
/// keeps across steps). Both become keys here.
///
/// Two kinds of wait. A wait for a lock, a queue, a semaphore used as a lock
/// or a once-token is for its holders: the waiter is stuck for good when one
/// of them is. A wait for a signal (a condition, a semaphore used as a signal,
/// a `waitUntil` step) is for anyone: the waiter is stuck for good only when
/// every other participant that could still send it is. A worker at a
/// barrier waits for every worker that has not reached it: it is stuck for
/// good when one of them is (a role that ends its round holding a lock the
/// next role waits for is a cycle through the round's barrier). The participants
/// stuck for good are the largest set closed under those rules; a
/// deadlock is that set when it is not empty, shown as the cycle (or, for a
/// signal nobody is left to send, the chain) its members wait along.
struct WaitForGraph {
    private let states: [ParticipantState]
    private let workers: Int
    private let singleDomain: Bool
    /// Holders of each key (shared bit cleared) and whether they hold it shared.
    private var holders: [UInt64: [(participant: Int, shared: Bool)]] = [:]
    /// The key each participant waiting for a holder waits for, and whether it waits shared.
    private var wants: [Int: (key: UInt64, shared: Bool)] = [:]
    /// The key each participant waiting for a signal waits on.
    private var signalWaits: [Int: UInt64] = [:]
    /// The workers waiting at a barrier for the others.
    private var barrierWaits: Set<Int> = []
    /// What to call that barrier: a scenario's round barrier, or the
    /// barriers of a workload's start and end.
    private let barrierName: String
    /// For the report, in each participant's own terms (a resource keeps its
    /// number in a single domain): what it holds, and what it waits for.
    private var heldNames: [Int: [String]] = [:]
    private var wantName: [Int: String] = [:]

    /// The graph of `states`, of which the first `workers` are the workers.
    /// With `singleDomain` (every resource guarded by one shared domain, as
    /// queues draining on one target are), holding any of the strategy's
    /// resources holds them all.
    /// With `mainQueue` (the strategy's sections run on the main queue),
    /// every resource of the strategy is the main queue itself, which the
    /// main thread holds while it runs any harness-aware main-queue block.
    /// With `rounds` (a scenario) a barrier is the round's.
    init(_ states: [ParticipantState], workers: Int, singleDomain: Bool, mainQueue: Bool = false, rounds: Bool = false) {
        self.states = states
        self.workers = workers
        self.singleDomain = singleDomain
        barrierName = rounds ? "the round's barrier" : "a barrier"
        let key = { (r: Int) in mainQueue ? WaitKey.mainQueue : WaitKey.strategyResource(singleDomain ? 0 : r) }
        let label = { (r: Int) in mainQueue ? "the main queue" : "resource \(r)" }
        for (p, s) in states.enumerated() {
            // Blocked on a primitive of its own code, a worker still holds
            // the strategy's sections it was inside.
            let site = s.site.phase == .blocked ? s.savedSite : s.site
            let r = key(site.resource), inner = key(site.inner)
            let shared = !site.isWrite
            switch site.phase {
            // A worker inside a main-queue section: the main thread holds the queue.
            case .inside where mainQueue: break
            case .inside: hold(r, by: p, shared: shared, label(site.resource))
            case .acquiringInner:
                if !mainQueue { hold(r, by: p, shared: false, label(site.resource)) }
                want(inner, by: p, shared: false, label(site.inner))
            case .insideInner where mainQueue: break
            case .insideInner:
                hold(r, by: p, shared: false, label(site.resource))
                if inner != r { hold(inner, by: p, shared: false, label(site.inner)) }
            case .acquiring: want(r, by: p, shared: shared, label(site.resource))
            case .atBarrier where p < workers: barrierWaits.insert(p)
            default: break
            }
            // A recursive lock taken again is published once per take: one
            // edge, and one name with its count.
            let heldShared = Set(s.held.filter { $0 & WaitKey.sharedBit != 0 }.map(WaitKey.primitive))
            for (k, count) in Self.counted(s.held.map(WaitKey.primitive)) {
                hold(k, by: p, shared: heldShared.contains(k),
                     (WaitKey.resource(of: k).map(label) ?? PrimitiveNames.describe(k)) + Self.reentries(count))
            }
            guard s.waitKind != 0 else { continue }
            let k = WaitKey.primitive(s.waitKey)
            if s.waitKind == UInt64(STRESS_WAIT_CONDITION) {
                signalWaits[p] = k
                wantName[p] = "a signal on " + PrimitiveNames.describeCondition(k)
            } else {
                let shared = s.waitKind == UInt64(STRESS_WAIT_READ_LOCK) || s.waitKind == UInt64(STRESS_WAIT_QUEUE_SHARED)
                want(k, by: p, shared: shared, PrimitiveNames.describe(k))
            }
        }
    }

    /// The participants waiting for a signal (a condition's).
    var signalWaiters: Set<Int> { Set(signalWaits.keys) }

    private mutating func hold(_ key: UInt64, by p: Int, shared: Bool, _ name: String) {
        if !(holders[key] ?? []).contains(where: { $0.participant == p }) { holders[key, default: []].append((p, shared)) }
        if !(heldNames[p] ?? []).contains(name) { heldNames[p, default: []].append(name) }
    }

    private mutating func want(_ key: UInt64, by p: Int, shared: Bool, _ name: String) {
        wants[p] = (key, shared)
        wantName[p] = name
    }

    /// The participants holding what `p` waits for and blocking it (readers do
    /// not block readers); for a signal, every other participant still in the trial.
    func edges(_ p: Int) -> [Int] {
        if signalWaits[p] != nil { return signallers(of: p) }
        if barrierWaits.contains(p) { return notArrived(except: p) }
        guard let want = wants[p] else { return [] }
        return (holders[want.key] ?? []).filter { !($0.shared && want.shared) }.map(\.participant)
    }

    /// The workers a barrier waiter waits for: every other worker neither at
    /// a barrier nor gone.
    private func notArrived(except p: Int) -> [Int] {
        (0..<Swift.min(workers, states.count)).filter { q in
            q != p && states[q].site.phase != .atBarrier && !states[q].site.phase.isOut
        }
    }

    /// Who could still send `p` its signal: every other participant that has
    /// not left (a finished worker, an idle main or helper thread, cannot).
    private func signallers(of p: Int) -> [Int] {
        states.indices.filter { $0 != p && !states[$0].site.phase.isOut }
    }

    /// The participants stuck for good (see the type's comment), among
    /// `candidates` (all when nil): the largest set in which every member
    /// waiting for holders (or at a barrier) waits for one in the set, and
    /// every member waiting for a signal has nobody outside the set left to
    /// send it. Members of `assumed` count as stuck whatever they do (a
    /// worker that runs without end): the result then holds them and the
    /// workers stuck behind them.
    func stuckForGood(among candidates: Set<Int>? = nil, assuming assumed: Set<Int> = []) -> Set<Int> {
        var set = Set(wants.keys).union(signalWaits.keys).union(barrierWaits)
        if let candidates { set.formIntersection(candidates) }
        set.formUnion(assumed)
        var changed = true
        while changed {
            changed = false
            for p in set.sorted() where !assumed.contains(p) {
                let next = edges(p)
                let stuck = signalWaits[p] != nil ? next.allSatisfy(set.contains) : next.contains(where: set.contains)
                if !stuck {
                    set.remove(p)
                    changed = true
                }
            }
        }
        return set
    }

    /// The members of a deadlock (see ``stuckForGood(among:)``) in the order
    /// they wait along: a cycle (each waits for the next, the last for the
    /// first), or a chain ending in one that waits for a signal nobody is
    /// left to send. Nil when nobody is stuck for good.
    ///
    /// The walk starts at, and steps to, members that wait for holders
    /// wherever it can. A cycle of lock waits is the deadlock's cause; the
    /// members waiting for a signal are stuck only because everyone who could
    /// send it is, and a walk among them alone would show a "cycle" of signal
    /// waiters that names no lock at all.
    func firstCycle(among candidates: Set<Int>? = nil) -> [Int]? {
        let stuck = stuckForGood(among: candidates)
        let waitsForHolders = { (p: Int) in self.wants[p] != nil || self.barrierWaits.contains(p) }
        guard let start = stuck.filter(waitsForHolders).min() ?? stuck.min() else { return nil }
        var path = [start]
        var current = start
        while true {
            let next = edges(current).filter(stuck.contains)
            guard let step = next.filter(waitsForHolders).min() ?? next.min() else { break }
            if let at = path.firstIndex(of: step) { return Array(path[at...]) }
            path.append(step)
            current = step
        }
        return path
    }

    /// One line per member: what it holds, what it waits for, and who holds that.
    func describe(_ members: [Int]) -> [String] {
        members.enumerated().map { i, p in
            let held = heldNames[p] ?? []
            let holds = held.isEmpty ? "" : "holds " + held.joined(separator: " and ") + " and "
            let name = Self.participantName(p, workers: workers)
            if signalWaits[p] != nil {
                let others = edges(p)
                let who = others.isEmpty ? "and no other participant is left to send it"
                    : "which only " + others.map { Self.participantName($0, workers: workers) }.joined(separator: ", ")
                        + (others.count == 1 ? ", itself stuck," : ", all stuck,") + " could send"
                return "\(name) \(holds)waits for \(wantName[p] ?? "a signal"), \(who)"
            }
            if barrierWaits.contains(p) {
                let next = i + 1 < members.count ? members[i + 1] : members[0]
                let awaited = edges(p).contains(next) ? next : edges(p).first ?? p
                return "\(name) \(holds)waits at \(barrierName) for \(Self.participantName(awaited, workers: workers))"
            }
            let want = wants[p]!
            let next = i + 1 < members.count ? members[i + 1] : members[0]
            let holder = edges(p).contains(next) ? next : edges(p).first ?? p
            let by = holder == p ? "held by itself" : "held by \(Self.participantName(holder, workers: workers))"
            let shared = singleDomain && WaitKey.resource(of: want.key) != nil && want.key != WaitKey.mainQueue
                ? " (every resource drains through one shared domain)" : ""
            return "\(name) \(holds)waits for \(wantName[p] ?? "?")\(shared), \(by)"
        }
    }

    /// Each distinct key once, in the order of its first appearance, with
    /// how many times it appears.
    static func counted(_ keys: [UInt64]) -> [(key: UInt64, count: Int)] {
        var result: [(key: UInt64, count: Int)] = []
        for key in keys {
            if let i = result.firstIndex(where: { $0.key == key }) { result[i].count += 1 } else { result.append((key, 1)) }
        }
        return result
    }

    /// The words after a primitive held `count` times ("" when once).
    static func reentries(_ count: Int) -> String {
        count > 1 ? " (held \(count) times: re-entered)" : ""
    }

    /// `worker 2`, `the main thread`, `helper thread 1`.
    static func participantName(_ p: Int, workers: Int) -> String {
        p < workers ? "worker \(p)" : p == workers ? "the main thread" : "helper thread \(p - workers)"
    }
}
