/// Who waits for whom among a trial's workers, built from what they publish:
/// an edge from a worker to each worker holding what it waits for. A cycle is
/// a deadlock (every member waits for the next, and the last for the first).
struct WaitForGraph {
    private let sites: [SiteWord]
    private let singleDomain: Bool
    /// Holders of each resource (in a single domain, of the one domain).
    private var holders: [Int: [Int]] = [:]
    /// The resource each waiting worker waits for.
    private var wants: [Int: Int] = [:]

    /// The graph of `sites`. With `singleDomain` (every resource guarded by
    /// one shared domain, as queues draining on one target are), holding any
    /// resource holds them all.
    init(_ sites: [SiteWord], singleDomain: Bool) {
        self.sites = sites
        self.singleDomain = singleDomain
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
    }

    private func domain(_ resource: Int) -> Int { singleDomain ? 0 : resource }

    /// The workers holding what `w` waits for and blocking it (readers do not
    /// block readers).
    func edges(_ w: Int) -> [Int] {
        guard let r = wants[w] else { return [] }
        return (holders[r] ?? []).filter { h in sites[h].isWrite || sites[w].isWrite }
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
        members.map { w in
            let site = sites[w]
            let held = site.phase == .acquiringInner ? site.resource : nil
            let wanted = site.phase == .acquiringInner ? site.inner : site.resource
            let holder = edges(w).first ?? w
            let holds = held.map { "holds resource \($0) and " } ?? ""
            let by = holder == w ? "held by itself" : "held by worker \(holder)"
            let shared = singleDomain ? " (every resource drains through one shared domain)" : ""
            return "worker \(w) \(holds)waits for resource \(wanted)\(shared), \(by)"
        }
    }
}
