import StressCore

extension StressRegistry {
    /// The strategy a trial runs: the registered one it names, or the
    /// per-resource mix of its parts.
    package func strategy(for spec: TrialSpec) -> StrategyEntry? {
        guard let partNames = spec.strategyParts, !partNames.isEmpty else { return strategy(named: spec.strategy) }
        let parts = partNames.compactMap { strategy(named: $0) }
        guard parts.count == partNames.count else { return nil }
        return StrategyEntry(perResource: spec.strategy, parts: parts)
    }
}
