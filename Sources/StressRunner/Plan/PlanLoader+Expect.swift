import Yams
import StressCore

/// Parsing of the `expect` key: what an experiment's trials must do.
extension PlanLoader {
    /// What an experiment runs, for checking the names an `expect` mapping
    /// uses; nil in `defaults`, where any registered strategy may be named
    /// (an experiment that does not run it just has no trial it applies to).
    struct ExpectScope {
        var strategies: [String]
        var threads: [Int]
    }

    /// `expect: violated`, `expect: [deadlock, crashed]`, or a mapping from
    /// `STRATEGY` or `STRATEGY/tN` to either.
    func parseExpect(_ node: Node, _ path: PlanKeyPath, scope: ExpectScope?, _ r: inout PlanReader) -> Expectation? {
        guard case .mapping = node else {
            return outcomes(node, path, &r).map { Expectation(all: $0) }
        }
        guard case .mapping(let map) = node else { return nil }
        var expectation = Expectation()
        var ok = true
        for (keyNode, value) in map {
            guard case .scalar(let scalar) = keyNode else {
                r.fail(path, keyNode, "keys must be plain words: a strategy, or a strategy and a thread count such as unsynchronized/t4")
                ok = false
                continue
            }
            let key = scalar.string
            let here = path.appending(key)
            guard let (strategy, threads) = strategyKey(key, keyNode, here, scope: scope, &r),
                  let expected = outcomes(value, here, &r) else {
                ok = false
                continue
            }
            if let threads {
                expectation.byStrategyAndThreads[Expectation.StrategyThreads(strategy: strategy, threads: threads)] = expected
            } else {
                expectation.byStrategy[strategy] = expected
            }
        }
        if map.count == 0 {
            r.fail(path, node, "the mapping is empty: name a strategy and the outcome it must have (e.g. unsynchronized: violated)")
            return nil
        }
        return ok ? expectation : nil
    }

    /// A mapping key: `STRATEGY` or `STRATEGY/tN`, checked against what the
    /// experiment runs (or the registry, in `defaults`).
    private func strategyKey(
        _ key: String, _ node: Node, _ path: PlanKeyPath, scope: ExpectScope?, _ r: inout PlanReader
    ) -> (strategy: String, threads: Int?)? {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let strategy = parts[0]
        let known = registry.strategies.map(\.descriptor.name)
        guard registry.strategy(named: strategy) != nil else {
            let among = scope?.strategies ?? known
            r.fail(path, node, "unknown strategy '\(strategy.clipped)'" + PlanReader.suggestion(for: strategy, among: among)
                   + " (\(scope == nil ? "available" : "this experiment runs"): \(among.joined(separator: ", ")))")
            return nil
        }
        if let scope, !scope.strategies.contains(strategy) {
            r.fail(path, node, "this experiment does not run strategy '\(strategy)' (it runs: \(scope.strategies.joined(separator: ", ")))")
            return nil
        }
        guard parts.count > 1 else { return (strategy, nil) }
        guard parts.count == 2, parts[1].hasPrefix("t"), let threads = Int(parts[1].dropFirst()), threads >= 1 else {
            r.fail(path, node, "'\(key.clipped)' is not a strategy or a strategy at a thread count: write e.g. '\(strategy)' or '\(strategy)/t4'")
            return nil
        }
        if let scope, !scope.threads.contains(threads) {
            r.fail(path, node, "this experiment runs \(scope.threads.map(String.init).joined(separator: ", ")) worker(s), not \(threads)")
            return nil
        }
        return (strategy, threads)
    }

    /// An outcome or a list of outcomes a plan may expect.
    private func outcomes(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> [TrialOutcome]? {
        let names = Expectation.expectable.map(\.rawValue)
        let what = "one of \(names.joined(separator: ", ")), a list of them, or a mapping from a strategy (or strategy/tN) to them"
        if case .sequence(let seq) = node, seq.isEmpty {
            r.fail(path, node, "the list is empty: name at least one outcome (\(names.joined(separator: ", ")))")
            return nil
        }
        if case .mapping = node {
            r.fail(path, node, "expected an outcome or a list of outcomes here, found a mapping (\(names.joined(separator: ", ")))")
            return nil
        }
        var result: [TrialOutcome] = []
        var ok = true
        for (i, item) in r.list(node).enumerated() {
            let here = node.sequence == nil ? path : path.appending(i)
            guard case .scalar(let s) = item else {
                r.fail(here, item, "expected \(what), found \(r.describe(item))")
                ok = false
                continue
            }
            guard let outcome = TrialOutcome(rawValue: s.string), Expectation.expectable.contains(outcome) else {
                let word = s.string
                let note = TrialOutcome(rawValue: word) != nil
                    ? " (a timeout, an error or a skip says the harness could not judge the trial)"
                    : ""
                r.fail(here, item, "'\(word.clipped)' is not an outcome a plan can expect\(note): expected \(what)"
                       + PlanReader.suggestion(for: word, among: names))
                ok = false
                continue
            }
            if result.contains(outcome) {
                r.fail(here, item, "outcome '\(outcome.rawValue)' is listed twice")
                ok = false
            } else {
                result.append(outcome)
            }
        }
        return ok ? result : nil
    }
}
