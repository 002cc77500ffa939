import Yams
import StressCore

/// Parsing of a per-resource mix in a `strategies` list:
/// `{name: mixed, resources: [semaphore, rw-queue]}` guards resource 0 with
/// `semaphore` and every other resource with `rw-queue` (the last entry
/// guards the rest). See ``PerResourceStrategy``.
extension PlanLoader {
    /// The keys a per-resource mix accepts.
    static let perResourceKeys = ["name", "resources"]

    /// A per-resource mix, its parts checked against the registry and
    /// against what a mix can hold; nil after reporting a problem.
    func parsePerResource(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> StrategyChoice? {
        guard let entries = r.mapping(node, path, allowed: Self.perResourceKeys) else { return nil }
        var name: String?
        var parts: [String]?
        let before = r.problems.count
        for (key, value) in entries {
            let here = path.appending(key)
            switch key {
            case "name": name = r.string(value, here).flatMap { checkName($0, here, value, &r) }
            case "resources": parts = parseParts(value, here, &r)
            default: break
            }
        }
        guard let parts, !parts.isEmpty else {
            if r.problems.count == before {
                r.fail(path, node, "a per-resource strategy lists the strategy of each resource: "
                       + "{name: mixed, resources: [semaphore, rw-queue]} (the last one guards the rest; the name defaults to the parts joined by _)")
            }
            return nil
        }
        let mixName = name ?? parts.joined(separator: "_")
        if name == nil, checkName(mixName, path, node, &r) == nil { return nil }
        if let clash = registry.strategy(named: mixName) {
            r.fail(path, node, "'\(mixName)' is the name of a registered strategy (\(clash.descriptor.summary)); give the mix another name")
            return nil
        }
        guard r.problems.count == before else { return nil }
        return StrategyChoice(name: mixName, node: node, path: path, parts: parts)
    }

    /// `resources: [a, b]`: registered strategies that can guard one resource of a mix.
    private func parseParts(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> [String]? {
        guard case .sequence(let seq) = node else {
            r.fail(path, node, "expected a list of strategy names, one per resource (the last one guards the rest)")
            return nil
        }
        if seq.isEmpty {
            r.fail(path, node, "the list is empty: name the strategy of resource 0, then 1, …")
            return nil
        }
        var parts: [String] = []
        let known = registry.strategies.map(\.descriptor.name)
        for (i, item) in seq.enumerated() {
            let here = path.appending(i)
            guard let name = r.string(item, here) else { continue }
            guard let entry = registry.strategy(named: name) else {
                r.fail(here, item, "unknown strategy '\(name.clipped)'" + PlanReader.suggestion(for: name, among: known))
                continue
            }
            if let why = PerResourceStrategy.unsuitability(of: entry.descriptor) {
                r.fail(here, item, "strategy '\(name)' cannot guard one resource of a mix: \(why)")
                continue
            }
            parts.append(name)
        }
        return parts.count == seq.count ? parts : nil
    }
}
