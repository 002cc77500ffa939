import CStressSupport

/// What one participant of a trial (a worker, the main thread, a helper
/// thread) has published, as the watchdog reads it.
struct ParticipantState {
    var site: SiteWord
    var completed: UInt64
    /// The key it waits for and what kind of wait (0: none); see CStressParticipant.h.
    var waitKey: UInt64 = 0
    var waitKind: UInt64 = 0
    /// The keys it holds.
    var held: [UInt64] = []
}

/// The key space of the wait-for graph: a primitive's address (with
/// ``sharedBit`` for a reader), or a resource of the strategy under test, or
/// the main queue, both above every user-space address.
enum WaitKey {
    /// Set on a key held or wanted shared (a reader).
    static let sharedBit: UInt64 = 1
    private static let strategyBase: UInt64 = 0x8000_0000_0000_0000
    /// The main queue (and the main actor, which drains on it).
    static let mainQueue: UInt64 = 0xC000_0000_0000_0000

    /// The key of the strategy's resource `r`.
    static func strategyResource(_ r: Int) -> UInt64 { strategyBase | (UInt64(r) << 1) }

    /// The key without its shared bit: the primitive itself.
    static func primitive(_ key: UInt64) -> UInt64 { key & ~sharedBit }

    /// The strategy resource a key names, if it names one.
    static func resource(of key: UInt64) -> Int? {
        let k = primitive(key)
        return k & strategyBase != 0 && k != mainQueue ? Int((k & ~strategyBase) >> 1) : nil
    }
}

/// Who waits for whom among a trial's participants, built from what they
/// publish: an edge from a participant to each one holding what it waits for.
/// A cycle is a deadlock (every member waits for the next, and the last for
/// the first).
///
/// Two sources: the site words (a worker waiting for or inside one of the
/// strategy's resources, published by the engine around every step) and the
/// keyed words (a harness-aware primitive of the code under test: its
/// address, published by the primitive itself). Both become keys here.
struct WaitForGraph {
    private let states: [ParticipantState]
    private let workers: Int
    private let singleDomain: Bool
    /// Holders of each key (shared bit cleared) and whether they hold it shared.
    private var holders: [UInt64: [(participant: Int, shared: Bool)]] = [:]
    /// The key each waiting participant waits for, and whether it waits shared.
    private var wants: [Int: (key: UInt64, shared: Bool)] = [:]
    /// For the report, in each participant's own terms (a resource keeps its
    /// number in a single domain): what it holds, and what it waits for.
    private var heldNames: [Int: [String]] = [:]
    private var wantName: [Int: String] = [:]

    /// The graph of `states`, of which the first `workers` are the workers.
    /// With `singleDomain` (every resource guarded by one shared domain, as
    /// queues draining on one target are), holding any of the strategy's
    /// resources holds them all.
    init(_ states: [ParticipantState], workers: Int, singleDomain: Bool) {
        self.states = states
        self.workers = workers
        self.singleDomain = singleDomain
        for (p, s) in states.enumerated() {
            let site = s.site
            let r = WaitKey.strategyResource(singleDomain ? 0 : site.resource)
            let inner = WaitKey.strategyResource(singleDomain ? 0 : site.inner)
            let shared = !site.isWrite
            switch site.phase {
            case .inside: hold(r, by: p, shared: shared, "resource \(site.resource)")
            case .acquiringInner:
                hold(r, by: p, shared: false, "resource \(site.resource)")
                want(inner, by: p, shared: false, "resource \(site.inner)")
            case .insideInner:
                hold(r, by: p, shared: false, "resource \(site.resource)")
                if inner != r { hold(inner, by: p, shared: false, "resource \(site.inner)") }
            case .acquiring: want(r, by: p, shared: shared, "resource \(site.resource)")
            default: break
            }
            for key in s.held {
                hold(WaitKey.primitive(key), by: p, shared: key & WaitKey.sharedBit != 0, PrimitiveNames.describe(WaitKey.primitive(key)))
            }
            if s.waitKind != 0, s.waitKind != UInt64(STRESS_WAIT_CONDITION) {
                let shared = s.waitKind == UInt64(STRESS_WAIT_READ_LOCK) || s.waitKind == UInt64(STRESS_WAIT_QUEUE_SHARED)
                want(WaitKey.primitive(s.waitKey), by: p, shared: shared, PrimitiveNames.describe(WaitKey.primitive(s.waitKey)))
            }
        }
    }

    private mutating func hold(_ key: UInt64, by p: Int, shared: Bool, _ name: String) {
        holders[key, default: []].append((p, shared))
        heldNames[p, default: []].append(name)
    }

    private mutating func want(_ key: UInt64, by p: Int, shared: Bool, _ name: String) {
        wants[p] = (key, shared)
        wantName[p] = name
    }

    /// The participants holding what `p` waits for and blocking it (readers do
    /// not block readers).
    func edges(_ p: Int) -> [Int] {
        guard let want = wants[p] else { return [] }
        return (holders[want.key] ?? []).filter { !($0.shared && want.shared) }.map(\.participant)
    }

    /// The members of the first cycle, in order (each waits for the next);
    /// nil when there is none.
    func firstCycle() -> [Int]? {
        for start in wants.keys.sorted() {
            var path = [start]
            var seen: Set<Int> = [start]
            var current = start
            while let next = edges(current).first {
                if next == start || seen.contains(next) {
                    return Array(path[(path.firstIndex(of: next) ?? 0)...])
                }
                seen.insert(next)
                path.append(next)
                current = next
            }
        }
        return nil
    }

    /// One line per member: what it holds, what it waits for, and who holds that.
    func describe(_ members: [Int]) -> [String] {
        members.map { p in
            let want = wants[p]!
            let holder = edges(p).first ?? p
            let held = heldNames[p] ?? []
            let holds = held.isEmpty ? "" : "holds " + held.joined(separator: " and ") + " and "
            let by = holder == p ? "held by itself" : "held by \(Self.participantName(holder, workers: workers))"
            let shared = singleDomain && WaitKey.resource(of: want.key) != nil ? " (every resource drains through one shared domain)" : ""
            return "\(Self.participantName(p, workers: workers)) \(holds)waits for \(wantName[p] ?? "?")\(shared), \(by)"
        }
    }

    /// `worker 2`, `the main thread`, `helper thread 1`.
    static func participantName(_ p: Int, workers: Int) -> String {
        p < workers ? "worker \(p)" : p == workers ? "the main thread" : "helper thread \(p - workers)"
    }
}
