import Foundation
import Yams
import StressCore

/// Parsing of what an experiment runs: the names it gives, the strategies it
/// compares (checked against the registry, and against the workload: a
/// lock-free strategy needs a workload with a lock-free form), its thread
/// counts and the workload's parameters (checked against the workload's
/// descriptor).
extension PlanLoader {
    /// `name` if it can be part of trial ids and file names (ASCII letters
    /// and digits, `.`, `_` and `-`, as docs/plans.md says); else a problem.
    func checkName(_ name: String, _ path: PlanKeyPath, _ node: Node, _ r: inout PlanReader) -> String? {
        let ok = !name.isEmpty && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
        }
        guard ok else {
            r.fail(path, node, "'\(name.clipped)' is not a usable name: use ASCII letters and digits, '-', '_' and '.' "
                   + "(it becomes part of trial ids, rerun commands and file names)")
            return nil
        }
        guard name.count <= Self.maxNameLength else {
            r.fail(path, node, "'\(name.clipped)' is too long for a name: at most \(Self.maxNameLength) characters "
                   + "(it becomes part of trial ids and file names)")
            return nil
        }
        return name
    }

    /// What `all` and a missing `strategies` mean: the registry's default strategies.
    var allStrategies: [StrategyChoice] {
        registry.defaultStrategies.map { StrategyChoice(name: $0.descriptor.name) }
    }

    /// `strategies: [a, b]` or `all`: known names, each once (`all` inside
    /// the list adds the defaults not named yet).
    func parseStrategies(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> [StrategyChoice]? {
        if case .scalar(let s) = node, s.string == "all" { return allStrategies }
        if case .sequence(let seq) = node, seq.isEmpty {
            r.fail(path, node, "the list is empty: name at least one strategy, or write 'all'")
            return nil
        }
        var choices: [StrategyChoice] = []
        let known = registry.strategies.map(\.descriptor.name)
        for (i, item) in r.list(node).enumerated() {
            let here = path.appending(i)
            if case .mapping = item {
                guard let mix = parsePerResource(item, here, &r) else { continue }
                if choices.contains(where: { $0.name == mix.name }) {
                    r.fail(here, item, "strategy '\(mix.name)' is listed twice")
                } else {
                    choices.append(mix)
                }
                continue
            }
            guard let name = r.string(item, here) else { continue }
            if name == "all" {
                choices += allStrategies.filter { c in !choices.contains { $0.name == c.name } }
            } else if registry.strategy(named: name) == nil {
                let visible = registry.defaultStrategies.map(\.descriptor.name)
                r.fail(here, item, "unknown strategy '\(name.clipped)'" + PlanReader.suggestion(for: name, among: known)
                       + " (available: \(visible.joined(separator: ", ")), or 'all')")
            } else if choices.contains(where: { $0.name == name }) {
                r.fail(here, item, "strategy '\(name)' is listed twice")
            } else {
                choices.append(StrategyChoice(name: name, node: item, path: here))
            }
        }
        return choices
    }

    /// What an experiment runs, as the loader checks it: a workload or a scenario.
    struct ProgramChoice {
        let name: String
        let parameters: [ParameterSpec]
        let validate: (WorkloadParameters) throws -> Void
        let supportsLockFree: (WorkloadParameters) -> Bool
        let stepNeeds: (WorkloadParameters) -> StepNeeds
        /// A scenario's role count for its parameters; nil for a workload.
        let roleCount: ((WorkloadParameters) throws -> Int)?
        /// A litmus scenario: refused under a controlled schedule.
        var needsWeakMemory = false
        var noun: String { roleCount == nil ? "workload" : "scenario" }
    }

    /// The workload (`key` is `workload`) or scenario (`scenario`) named by `node`.
    func program(named node: Node, key: String, _ path: PlanKeyPath, _ r: inout PlanReader) -> ProgramChoice? {
        guard let name = r.string(node, path) else { return nil }
        if key == "workload", let w = registry.workload(named: name) {
            return ProgramChoice(name: w.descriptor.name, parameters: w.descriptor.parameters, validate: w.validate,
                                 supportsLockFree: w.supportsLockFree, stepNeeds: w.stepNeeds, roleCount: nil)
        }
        if key == "scenario", let s = registry.scenario(named: name) {
            return ProgramChoice(name: s.descriptor.name, parameters: s.descriptor.parameters, validate: { _ = try s.roleCount($0) },
                                 supportsLockFree: { _ in false }, stepNeeds: s.stepNeeds, roleCount: s.roleCount,
                                 needsWeakMemory: s.descriptor.needsWeakMemory)
        }
        let names = key == "workload"
            ? registry.workloads.filter { !$0.descriptor.hidden }.map(\.descriptor.name)
            : registry.scenarios.filter { !$0.descriptor.hidden }.map(\.descriptor.name)
        var message = "unknown \(key) '\(name.clipped)'" + PlanReader.suggestion(for: name, among: names)
            + " (available: \(names.joined(separator: ", ")); `stressbench list` describes them)"
        if key == "workload", registry.scenario(named: name) != nil { message = "'\(name)' is a scenario: write 'scenario: \(name)'" }
        if key == "scenario", registry.workload(named: name) != nil { message = "'\(name)' is a workload: write 'workload: \(name)'" }
        r.fail(path, node, message)
        return nil
    }

    /// Drops strategies the workload cannot pair with when they came from
    /// `all` (lock-free ones for a workload with no lock-free form, ones that
    /// cannot run its steps, and, when `controlled`, ones a controlled
    /// schedule cannot drive); reports them, saying why, when the plan named them.
    func pairable(
        _ choices: [StrategyChoice], with workload: ProgramChoice, _ parameters: WorkloadParameters,
        controlled: Bool = false, _ r: inout PlanReader
    ) -> [String] {
        var names: [String] = []
        let needs = workload.stepNeeds(parameters)
        for c in choices {
            guard let entry = c.parts.map({ parts in StrategyEntry(perResource: c.name, parts: parts.compactMap { registry.strategy(named: $0) }) })
                    ?? registry.strategy(named: c.name) else { continue }
            if entry.descriptor.lockFree && !workload.supportsLockFree(parameters) {
                if let node = c.node, let path = c.path {
                    r.fail(path, node, "strategy '\(c.name)' is lock-free and needs a workload with a lock-free form; '\(workload.name)' has none")
                }
                continue
            }
            if let why = entry.cannotRun(needs) {
                if let node = c.node, let path = c.path {
                    r.fail(path, node, "strategy '\(c.name)' cannot run \(workload.noun) '\(workload.name)': \(why)")
                }
                continue
            }
            if controlled, let why = ControlledScheduleLimits.strategyProblem(entry.descriptor) {
                if let node = c.node, let path = c.path {
                    r.fail(path, node, "strategy '\(c.name)' cannot run under schedule: controlled: \(why)")
                }
                continue
            }
            names.append(c.name)
        }
        if names.isEmpty && !choices.isEmpty && r.problems.isEmpty {
            r.fail(.root, nil, "no strategy left for \(workload.noun) '\(workload.name)'"
                   + (controlled ? " under schedule: controlled (it drives thread workers only)" : ""))
        }
        return names
    }

    /// Reports what a controlled schedule cannot run besides strategies: a
    /// paced load (at `loadAt`, where `load` was given) and a litmus scenario
    /// (at `scenarioAt`, the experiment's `scenario` key).
    func checkControllable(
        _ workload: ProgramChoice, load: LoadSettings, at loadAt: (node: Node, path: PlanKeyPath)?,
        scenarioAt: (node: Node, path: PlanKeyPath)?, _ r: inout PlanReader
    ) {
        if load.mode == .paced {
            r.fail(loadAt?.path ?? .root, loadAt?.node, "cannot run under schedule: controlled: \(ControlledScheduleLimits.pacedProblem)")
        }
        if workload.needsWeakMemory {
            r.fail(scenarioAt?.path ?? .root, scenarioAt?.node, ControlledScheduleLimits.litmusProblem(workload.name))
        }
    }

    /// `threads: 4` or `threads: [1, 2, 4]`: positive, each once.
    func parseThreads(_ node: Node, _ path: PlanKeyPath, _ r: inout PlanReader) -> [Int]? {
        if case .sequence(let seq) = node, seq.isEmpty {
            r.fail(path, node, "the list is empty: give at least one thread count")
            return nil
        }
        var counts: [Int] = []
        for (i, item) in r.list(node).enumerated() {
            let here = path.appending(i)
            guard let n = r.integer(item, here, range: 1...Self.maxThreads, what: "a thread count (a whole number ≥ 1)") else { continue }
            if counts.contains(n) { r.fail(here, item, "thread count \(n) is listed twice") } else { counts.append(n) }
        }
        return counts
    }

    /// `parameters:` against the workload's descriptor, defaults filled in,
    /// then the workload's own `validate` (which sees them all together).
    func parseParameters(
        _ given: (Node, PlanKeyPath)?, workload: ProgramChoice, path: PlanKeyPath, _ r: inout PlanReader
    ) -> WorkloadParameters? {
        let specs = workload.parameters
        var overrides: [String: ParameterValue] = [:]
        if let (node, _) = given {
            let allowed = specs.map(\.name)
            if allowed.isEmpty, case .mapping(let m) = node, !m.isEmpty {
                r.fail(path, node, "\(workload.noun) '\(workload.name)' takes no parameters")
                return nil
            }
            guard let entries = r.mapping(node, path, allowed: allowed) else { return nil }
            for (key, value) in entries {
                let spec = specs.first { $0.name == key }!
                if let v = parseValue(value, spec: spec, path.appending(key), &r) { overrides[key] = v }
            }
        }
        let parameters = WorkloadParameters(defaultsOf: specs, overrides: overrides)
        do {
            try workload.validate(parameters)
        } catch let error as WorkloadParameterError {
            let at = error.parameter.map { path.appending($0) } ?? path
            r.fail(at, given?.0, error.message)
            return nil
        } catch {
            r.fail(path, given?.0, "\(error)")
            return nil
        }
        return parameters
    }

    /// One parameter's value, checked against its spec (type, range, choices).
    func parseValue(_ node: Node, spec: ParameterSpec, _ path: PlanKeyPath, _ r: inout PlanReader) -> ParameterValue? {
        switch spec.kind {
        case .integer(let range): return r.integer(node, path, range: range).map(ParameterValue.integer)
        case .number(let range): return r.number(node, path, range: range).map(ParameterValue.number)
        case .flag: return r.flag(node, path).map(ParameterValue.flag)
        case .choice(let choices):
            guard let word = r.string(node, path) else { return nil }
            guard choices.contains(word) else {
                r.fail(path, node, "'\(word.clipped)' is not one of \(choices.joined(separator: ", "))" + PlanReader.suggestion(for: word, among: choices))
                return nil
            }
            return .text(word)
        }
    }
}
