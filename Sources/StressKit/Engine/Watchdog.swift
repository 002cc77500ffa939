import Synchronization

/// Watches the site board of a running trial. When no worker has completed an
/// operation for `stallAfterNs`, it builds a ``StallReport`` (where every worker
/// is, and the wait-for cycle if there is one) and hands it to `onStall`, which
/// ends the trial. Reading the board costs the workers nothing: they only store
/// to their own lines.
final class Watchdog: Sendable {
    private let board: SiteBoard
    private let stallAfterNs: UInt64
    private let strategy: StrategyDescriptor
    private let onStall: @Sendable (StallReport) -> Void
    private let stopping = ConditionSignal()
    private let startedAt = MonotonicClock.now()

    init(board: SiteBoard, stallAfterNs: UInt64, strategy: StrategyDescriptor, onStall: @escaping @Sendable (StallReport) -> Void) {
        self.board = board
        self.stallAfterNs = stallAfterNs
        self.strategy = strategy
        self.onStall = onStall
    }

    /// Starts watching on a thread of its own.
    func start() -> OSThread? {
        OSThread.spawn { [self] in watch() }
    }

    /// Stops watching (after the workers have ended).
    func stop(_ thread: OSThread?) {
        stopping.open()
        thread?.join()
    }

    private func watch() {
        let interval = Swift.max(1_000_000, Swift.min(100_000_000, stallAfterNs / 10))
        var last = (0..<board.workers).map { board.read($0).completed }
        var lastChange = MonotonicClock.now()
        // One timed wait per interval, which stop() cuts short: the watchdog
        // wakes about ten times per stall limit, not every few milliseconds, so
        // it takes next to nothing from the workers' cores and context-switch counts.
        while !stopping.wait(upTo: interval) {
            let snapshot = (0..<board.workers).map(board.read)
            if snapshot.allSatisfy({ $0.site.phase == .finished }) { return }
            let completed = snapshot.map(\.completed)
            let now = MonotonicClock.now()
            // A paced worker waiting for its next start is idle by design: no
            // completions for a while is then the schedule, not a stall.
            if completed != last || snapshot.contains(where: { $0.site.phase == .pacing }) {
                last = completed
                lastChange = now
            } else if now &- lastChange >= stallAfterNs {
                var stall = report(snapshot, stalledFor: now &- lastChange)
                stall.beganAfterNs = Int(lastChange &- startedAt)
                onStall(stall)
                return
            }
        }
    }

    func report(_ snapshot: [(site: SiteWord, completed: UInt64)], stalledFor: UInt64) -> StallReport {
        let workers = snapshot.enumerated().map { w, s in describe(w, s.site, completed: s.completed) }
        let unfinished = snapshot.enumerated().filter { $0.element.site.phase != .finished }
        let running = unfinished.filter { !$0.element.site.phase.isWaiting }
        let kind: StallReport.Kind = running.isEmpty ? .deadlock : .hang
        let cycle = Self.waitForCycle(snapshot.map(\.site), singleDomain: strategy.singleDomain)
        let seconds = Quantities.format(nanoseconds: stalledFor)
        var summary: String
        if kind == .deadlock {
            summary = "deadlock: no worker completed an operation for \(seconds); every unfinished worker is waiting"
        } else {
            let who = running.map { "worker \($0.offset) (\(workers[$0.offset].description))" }.joined(separator: ", ")
            summary = "hang: no worker completed an operation for \(seconds); still running: \(who)"
        }
        if let cycle { summary += ". Wait-for cycle: " + cycle.joined(separator: "; ") }
        return StallReport(kind: kind, stalledForNs: Int(stalledFor), workers: workers, cycle: cycle, summary: summary)
    }

    private func describe(_ w: Int, _ site: SiteWord, completed: UInt64) -> StalledWorker {
        let label = site.site.flatMap { board.labels.indices.contains($0) ? board.labels[$0] : nil }
        let parts = label?.split(separator: "/", maxSplits: 1).map(String.init)
        let r = site.resource, inner = site.inner
        let mode = site.isWrite ? "write" : "read"
        let noun: (Int) -> String = { [strategy] r in
            switch strategy.primitive {
            case .lock: return "the lock of resource \(r)"
            case .queue: return "the queue of resource \(r)"
            case .actor: return "the actor of resource \(r)"
            case .atomic, .none: return "resource \(r) (not synchronized)"
            }
        }
        let text: String
        switch site.phase {
        case .starting: text = "starting"
        case .running: text = "running outside any critical section"
        case .acquiring: text = "waiting to acquire \(noun(r)) (\(mode))"
        case .inside: text = "inside \(noun(r)) (\(mode))"
        case .acquiringInner:
            text = inner == r
                ? "holding \(noun(r)) and waiting to acquire it again (nested write)"
                : "holding \(noun(r)) and waiting to acquire \(noun(inner)) (nested write)"
        case .insideInner: text = "inside \(noun(r)) and, nested, \(noun(inner))"
        case .betweenOperations: text = "between operations"
        case .atBarrier: text = "waiting at a start barrier for the other workers"
        case .finished: text = "finished"
        case .pacing: text = "waiting for its next scheduled start (paced load)"
        }
        let hasResource = [.acquiring, .inside, .acquiringInner, .insideInner].contains(site.phase)
        return StalledWorker(
            thread: w, operation: parts?.first, step: parts?.dropFirst().first, phase: "\(site.phase)",
            description: (label.map { "\($0): " } ?? "") + text,
            resource: hasResource ? r : nil,
            innerResource: site.phase == .acquiringInner || site.phase == .insideInner ? inner : nil,
            completedOps: Int(completed)
        )
    }

    /// The first cycle in the wait-for graph (worker → holder of what it waits
    /// for), as one line per edge; nil when there is none.
    /// With `singleDomain` (every resource guarded by one shared domain, as
    /// queues draining on one target are), holding any resource holds them all.
    static func waitForCycle(_ sites: [SiteWord], singleDomain: Bool = false) -> [String]? {
        // Who holds what, and who waits for what; in a single domain, the one
        // domain is what everyone holds and waits for.
        let domain: (Int) -> Int = { singleDomain ? 0 : $0 }
        var holders: [Int: [Int]] = [:]
        var wants: [Int: Int] = [:]
        for (w, s) in sites.enumerated() {
            switch s.phase {
            case .inside: holders[domain(s.resource), default: []].append(w)
            case .acquiringInner:
                holders[domain(s.resource), default: []].append(w)
                wants[w] = domain(s.inner)
            case .insideInner:
                holders[domain(s.resource), default: []].append(w)
                if domain(s.inner) != domain(s.resource) { holders[domain(s.inner), default: []].append(w) }
            case .acquiring: wants[w] = domain(s.resource)
            default: break
            }
        }
        func edges(_ w: Int) -> [Int] {
            guard let r = wants[w] else { return [] }
            // Readers do not block readers.
            return (holders[r] ?? []).filter { h in sites[h].isWrite || sites[w].isWrite }
        }
        for start in wants.keys.sorted() {
            var path = [start]
            var seen: Set<Int> = [start]
            var current = start
            while let next = edges(current).first {
                if next == start || seen.contains(next) {
                    let cycleStart = path.firstIndex(of: next) ?? 0
                    let members = Array(path[cycleStart...])
                    return members.map { w in
                        let site = sites[w]
                        let held = site.phase == .acquiringInner ? site.resource : nil
                        let wanted = site.phase == .acquiringInner ? site.inner : site.resource
                        let holder = edges(w).first!
                        let holds = held.map { "holds resource \($0) and " } ?? ""
                        let by = holder == w ? "held by itself" : "held by worker \(holder)"
                        let shared = singleDomain ? " (every resource drains through one shared domain)" : ""
                        return "worker \(w) \(holds)waits for resource \(wanted)\(shared), \(by)"
                    }
                }
                seen.insert(next)
                path.append(next)
                current = next
            }
        }
        return nil
    }
}
