import Foundation
import Yams
import StressCore

/// Reads a plan file (YAML, or JSON, which is YAML too) and validates every value
/// against a registry before anything runs.
///
/// A plan has an optional `defaults` mapping (like fio's `[global]`) whose keys any
/// experiment may override:
///
/// ```yaml
/// name: quickstart
/// defaults: { threads: [1, 2, 4], duration: 500ms, warmup: 100ms, seed: 42 }
/// experiments:
///   - workload: counter
///     strategies: [pthread-mutex, actor, unsynchronized]
///   - workload: bank
///     parameters: { accounts: 8 }
///     threads: 4
/// ```
///
/// All problems are collected and thrown together as a ``PlanError``, each with
/// the file, the key path (`experiments[1].threads[0]`) and the line.
package struct PlanLoader: Sendable {
    /// The registry workload and strategy names are checked against.
    public let registry: StressRegistry
    /// Accept plans past the size limits without `allow_large: true` in
    /// them (the command line's `--allow-large`).
    public let allowLarge: Bool
    /// Whether the binary that runs the plan has ThreadSanitizer: a plan's
    /// `sanitizer: thread` is refused without it (the tests say either).
    package var threadSanitizerBuilt = ThreadSanitizer.isActive

    /// A loader for `registry`.
    public init(registry: StressRegistry, allowLarge: Bool = false) {
        self.registry = registry
        self.allowLarge = allowLarge
    }

    static let topKeys = ["name", "description", "order", "allow_large", "sanitizer", "defaults", "experiments", "thresholds", "gate"]
    static let sharedKeys = ["strategies", "threads", "duration", "ops", "repetitions", "seed", "warmup", "timeout", "deadlock_after", "fuzz", "timing", "allocator", "load", "stop_on_violation", "expect", "interpose", "executor", "schedule", "max_decisions", "shrink", "explore", "hunt"]
    static let experimentKeys = ["name", "description", "workload", "scenario", "parameters", "thresholds", "check"] + sharedKeys
    static let maxThreads = 4096
    /// The longest name of a plan or an experiment (names become parts of file names).
    static let maxNameLength = 100

    /// Loads and validates the plan at `path`.
    public func load(file path: String) throws(PlanError) -> Plan {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = access(path, R_OK) == 0 ? "it is not a readable file" : String(cString: strerror(errno))
            throw PlanError(problems: [PlanProblem(file: path, path: .root, message: "cannot read the file: \(reason)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PlanError(problems: [PlanProblem(file: path, path: .root, message: "the file is not UTF-8 text")])
        }
        return try load(text: text, file: path)
    }

    /// Loads and validates plan text; `file` names it in messages.
    public func load(text: String, file: String = "<plan>") throws(PlanError) -> Plan {
        // The shape first, from the parser's events: repeated keys, keys that
        // are not words, and alias expansions no plan needs, before anything
        // builds a tree (see PlanShape for what that saves).
        let shape = PlanShape.problems(text: text, file: file)
        if !shape.isEmpty { throw PlanError(problems: shape) }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch YamlError.duplicatedKeysInMapping(let keys, let context) {
            // PlanShape reports every repeated key first; this is a fallback.
            throw PlanError(problems: [PlanProblem(
                file: file, path: .root, line: context.mark.line, column: context.mark.column,
                message: "a key is given twice in one mapping: \(keys.map { "'\($0)'" }.joined(separator: ", "))")])
        } catch let error as YamlError {
            throw PlanError(problems: [Self.syntaxProblem(error, file: file)])
        } catch {
            throw PlanError(problems: [PlanProblem(file: file, path: .root, message: "not valid YAML or JSON: \(error)")])
        }
        guard let root else {
            throw PlanError(problems: [PlanProblem(file: file, path: .root, line: 1, column: 1, message: "the plan is empty; it needs an 'experiments' list")])
        }
        return try load(tree: root, file: file)
    }

    // MARK: - Plan and experiments

    func parsePlan(_ root: Node, file: String, reader r: inout PlanReader) -> Plan? {
        guard let entries = r.mapping(root, .root, allowed: Self.topKeys) else { return nil }
        var name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        var description: String?
        var defaults = Layer()
        var experimentsNode: Node?
        var gate = GatePolicy()
        var order = TrialOrder.matrix
        var orderGiven = false
        var allowLarge = self.allowLarge
        var thresholdsSeen = 0
        var sanitizer: String?
        for (key, value) in entries {
            let path = PlanKeyPath.root.appending(key)
            switch key {
            case "name": name = r.string(value, path).flatMap { checkName($0, path, value, &r) } ?? name
            case "description": description = r.string(value, path)
            case "allow_large": allowLarge = r.flag(value, path) ?? false || self.allowLarge
            case "sanitizer": sanitizer = parseSanitizer(value, path, &r)
            case "order":
                order = parseOrder(value, path, &r) ?? order
                orderGiven = true
            case "defaults":
                guard let d = r.mapping(value, path, allowed: Self.sharedKeys + ["thresholds"]) else { break }
                defaults = parseLayer(d, path, &r)
                if let e = d.first(where: { $0.key == "expect" }) {
                    defaults.expect = parseExpect(e.value, path.appending("expect"), scope: nil, &r)
                }
                // `defaults.thresholds` is another place for the plan-wide list:
                // every experiment gets it, and one of its own replaces it per metric.
                if let t = d.first(where: { $0.key == "thresholds" }) {
                    thresholdsSeen += 1
                    gate.planThresholds += parseThresholds(t.value, path.appending("thresholds"), &r)
                }
            case "thresholds":
                thresholdsSeen += 1
                gate.planThresholds += parseThresholds(value, path, &r)
            case "gate":
                gate.declared = true
                parseGateSettings(value, path, into: &gate.comparison, &r)
            default: experimentsNode = value
            }
        }
        if thresholdsSeen > 1, let top = entries.first(where: { $0.key == "thresholds" }) {
            r.fail(PlanKeyPath.root.appending("thresholds"), top.value,
                   "plan-wide thresholds are given twice, here and in 'defaults.thresholds'; keep one list")
        }
        guard let experimentsNode else {
            r.fail(.root, root, "missing 'experiments': a plan needs a list of at least one experiment")
            return nil
        }
        guard case .sequence(let seq) = experimentsNode, !seq.isEmpty else {
            r.fail(PlanKeyPath.root.appending("experiments"), experimentsNode,
                   "expected a non-empty list of experiments, found \(r.describe(experimentsNode))")
            return nil
        }
        var experiments: [Experiment] = []
        var names: [String: Int] = [:]
        for (i, node) in seq.enumerated() {
            let path = PlanKeyPath.root.appending("experiments").appending(i)
            guard let e = parseExperiment(node, path, defaults: defaults, &r) else { continue }
            if let first = names[e.name] {
                r.fail(path, node, "experiment name '\(e.name)' is already used by experiments[\(first)]; give each a distinct 'name'")
                continue
            }
            names[e.name] = i
            experiments.append(e)
            if let t = experimentThresholds(node, path, &r) { gate.experimentThresholds[e.name] = t }
        }
        var plan = Plan(name: name, file: file, description: description, experiments: experiments)
        plan.gate = gate
        for (i, e) in experiments.enumerated() where TrialMatrix.trialCount(e) > TrialMatrix.maxTrials {
            let index = names[e.name] ?? i
            let path = PlanKeyPath.root.appending("experiments").appending(index)
            r.fail(path, seq[index], "experiment '\(e.name)' expands to \(TrialMatrix.product(e)); "
                   + "a plan may have at most \(TrialMatrix.maxTrials) (fewer repetitions, thread counts or strategies)")
        }
        if r.problems.isEmpty, let problem = TrialMatrix.sizeProblem(plan) {
            r.fail(PlanKeyPath.root.appending("experiments"), experimentsNode, problem)
        }
        plan.allowLarge = allowLarge
        plan.sanitizer = sanitizer
        if !allowLarge && r.problems.isEmpty { checkSize(plan, seq, indexOf: names, &r) }
        // A plan meant for baseline comparisons runs repetition first unless it
        // chooses: back to back, a cell's repetitions can all fall in one slow
        // stretch of a shared machine, which the comparison reads as a
        // regression (docs/gate.md, "Calibration"). Decided by the plan alone, never
        // by a flag, so its baseline run, its compared runs and every shard of
        // either run the trials in one order.
        plan.order = orderGiven ? order : gate.expectsComparison ? .interleaved : .matrix
        return plan
    }

    /// A strategy named in a plan; `node` is nil when it came from `all`.
    struct StrategyChoice {
        var name: String
        var node: Node?
        var path: PlanKeyPath?
        /// A per-resource mix's strategies, in resource order; nil for a registered strategy.
        var parts: [String]? = nil
    }

    private func parseLayer(_ entries: [(key: String, value: Node)], _ path: PlanKeyPath, _ r: inout PlanReader) -> Layer {
        var layer = Layer()
        var durationNode: Node?
        var opsNode: Node?
        for (key, value) in entries {
            let here = path.appending(key)
            switch key {
            case "strategies": layer.strategies = parseStrategies(value, here, &r)
            case "threads":
                layer.threads = parseThreads(value, here, &r)
                layer.threadsAt = (value, here)
            case "duration": durationNode = value
            case "ops": opsNode = value
            case "repetitions": layer.repetitions = r.integer(value, here, range: 1...100_000, what: "a positive number of repetitions")
            case "seed": layer.seed = r.integer(value, here, range: 0...Int(TrialMatrix.seedLimit - 1), what: "a non-negative integer seed").map(UInt64.init)
            case "warmup": layer.warmup = r.duration(value, here, positive: false)
            case "deadlock_after":
                layer.deadlockAfter = r.duration(value, here, positive: true)
                layer.deadlockAfterAt = (value, here)
            case "fuzz":
                layer.fuzz = parseFuzz(value, here, &r)
                layer.fuzzAt = (value, here)
            case "timing": layer.timing = parseTiming(value, here, &r)
            case "allocator": layer.allocators = parseAllocators(value, here, &r)
            case "load":
                layer.load = parseLoad(value, here, &r)
                layer.loadAt = (value, here)
            case "schedule":
                layer.schedule = parseSchedule(value, here, &r)
                layer.scheduleAt = (value, here)
            case "shrink": layer.shrinkNs = parseShrink(value, here, &r)
            case "hunt": layer.huntNs = parseHunt(value, here, &r)
            case "explore":
                layer.exploration = parseExplore(value, here, &r)
                layer.exploreAt = (value, here)
            case "max_decisions":
                layer.maxDecisions = r.integer(value, here, range: 1...ControlledScheduleLimits.mostDecisions,
                                               what: "a positive number of scheduling decisions")
            case "stop_on_violation": layer.stopOnViolation = r.flag(value, here)
            case "interpose": layer.interpose = r.flag(value, here)
            case "executor":
                guard let word = r.string(value, here) else { break }
                guard let choice = ExecutorChoice(rawValue: word) else {
                    r.fail(here, value, "expected global, harness or deterministic, found '\(word.clipped)'")
                    break
                }
                layer.executor = choice
            case "expect": layer.expectAt = (value, here)
            case "timeout":
                if case .scalar(let s) = value, s.string == "auto" { layer.timeout = .some(nil) } else {
                    layer.timeout = r.duration(value, here, positive: true).map { .some($0) }
                }
                layer.timeoutAt = (value, here)
            default: break
            }
        }
        switch (durationNode, opsNode) {
        case (let d?, nil):
            layer.stop = r.duration(d, path.appending("duration"), positive: true).map { .duration(nanoseconds: $0) }
        case (nil, let o?):
            layer.stop = r.integer(o, path.appending("ops"), range: 1...Int.max, what: "a positive number of operations per thread")
                .map { .operations(perThread: $0) }
        case (_?, let o?):
            r.fail(path.appending("ops"), o, "set either 'duration' or 'ops' at one level, not both")
        default: break
        }
        return layer
    }

    private func parseExperiment(_ node: Node, _ path: PlanKeyPath, defaults: Layer, _ r: inout PlanReader) -> Experiment? {
        guard let entries = r.mapping(node, path, allowed: Self.experimentKeys) else { return nil }
        let before = r.problems.count
        let layer = parseLayer(entries.filter { Self.sharedKeys.contains($0.key) }, path, &r)
        var name: String?
        var description: String?
        var workload: ProgramChoice?
        var parametersNode: (Node, PlanKeyPath)?
        for (key, value) in entries {
            let here = path.appending(key)
            switch key {
            case "name": name = r.string(value, here).flatMap { checkName($0, here, value, &r) }
            case "description": description = r.string(value, here)
            case "workload", "scenario":
                if entries.contains(where: { $0.key == (key == "workload" ? "scenario" : "workload") }), key == "scenario" {
                    r.fail(here, value, "an experiment runs a workload or a scenario, not both")
                    break
                }
                workload = program(named: value, key: key, here, &r)
            case "parameters": parametersNode = (value, here)
            default: break
            }
        }
        if workload == nil && !entries.contains(where: { $0.key == "workload" || $0.key == "scenario" }) {
            r.fail(path, node, "missing 'workload' (or 'scenario'): every experiment names what it runs")
        }
        guard let workload else { return nil }
        let parameters = parseParameters(parametersNode, workload: workload, path: path.appending("parameters"), &r)
        guard r.problems.count == before, let parameters else { return nil }
        let exploration = layer.exploration ?? defaults.exploration
        let schedule = exploreSchedule(layer, defaults: defaults, &r)
        let strategies = pairable(layer.strategies ?? defaults.strategies ?? allStrategies, with: workload, parameters,
                                  controlled: schedule == .controlled, &r)
        var threads = layer.threads ?? defaults.threads ?? PlanDefaults.threads
        if let roleCount = workload.roleCount {
            // A scenario's trials have one worker per role: the plan's own
            // `threads` must say that count; `defaults.threads` does not apply.
            do {
                let roles = try roleCount(parameters)
                if let given = layer.threads, let at = layer.threadsAt, given != [roles] {
                    r.fail(at.path, at.node, "scenario '\(workload.name)' has \(roles) roles, so its trials have \(roles) workers "
                           + "(role i on worker i); threads must be \(roles) or left out, not \(given.map(String.init).joined(separator: ", "))")
                }
                threads = [roles]
            } catch {
                r.fail(path.appending("parameters"), parametersNode?.0, "\(error)")
            }
        }
        let load = layer.load ?? defaults.load ?? .closed
        let warmup = layer.warmup ?? defaults.warmup ?? PlanDefaults.warmupNs
        if case .fractionOfCapacity? = load.rate, warmup == 0 {
            r.fail(path, node, "a paced rate given as a share of capacity is calibrated during the warm-up; set a warm-up (e.g. warmup: 200ms)")
        }
        if schedule == .controlled {
            checkControllable(workload, load: load, at: layer.loadAt ?? defaults.loadAt,
                              scenarioAt: entries.first { $0.key == "scenario" }.map { ($0.value, path.appending("scenario")) }, &r)
        }
        guard r.problems.count == before else { return nil }
        var experiment = Experiment(
            name: name ?? workload.name,
            description: description,
            workload: workload.name,
            parameters: parameters,
            strategies: strategies,
            threads: threads,
            stop: layer.stop ?? defaults.stop ?? .duration(nanoseconds: PlanDefaults.durationNs),
            repetitions: layer.repetitions ?? defaults.repetitions ?? PlanDefaults.repetitions,
            repetitionsGiven: (layer.repetitions ?? defaults.repetitions) != nil,
            seed: layer.seed ?? defaults.seed ?? PlanDefaults.seed,
            warmupNs: warmup,
            timeoutNs: (layer.timeout ?? defaults.timeout) ?? nil,
            deadlockAfterNs: layer.deadlockAfter ?? defaults.deadlockAfter ?? PlanDefaults.deadlockAfterNs,
            fuzz: layer.fuzz ?? defaults.fuzz ?? FuzzSettings(.off),
            timing: layer.timing ?? defaults.timing ?? .standard,
            allocators: layer.allocators ?? defaults.allocators ?? [.system],
            load: load,
            stopOnViolation: layer.stopOnViolation ?? defaults.stopOnViolation ?? false
        )
        experiment.isScenario = workload.roleCount != nil
        guard parseCheck(entries, path, &experiment, &r) else { return nil }
        experiment.interpose = layer.interpose ?? defaults.interpose ?? false
        experiment.executor = layer.executor ?? defaults.executor
        experiment.schedule = schedule
        experiment.maxDecisions = layer.maxDecisions ?? defaults.maxDecisions ?? PlanDefaults.maxDecisions
        experiment.shrinkNs = layer.shrinkNs ?? defaults.shrinkNs ?? PlanDefaults.shrinkNs
        experiment.exploration = exploration
        experiment.huntNs = layer.huntNs ?? defaults.huntNs ?? 0
        for choice in layer.strategies ?? defaults.strategies ?? [] {
            if let parts = choice.parts, strategies.contains(choice.name) { experiment.strategyParts[choice.name] = parts }
        }
        if let at = layer.expectAt {
            let scope = ExpectScope(strategies: strategies, threads: threads)
            guard let expect = parseExpect(at.node, at.path, scope: scope, &r) else { return nil }
            experiment.expect = expect
        } else if let expect = defaults.expect {
            experiment.expect = expect
        }
        checkWatchdogFitsTimeout(experiment, layer: layer, defaults: defaults, node: node, path: path, &r)
        if checkFuzzFitsTrial(experiment, at: layer.fuzzAt ?? defaults.fuzzAt ?? (node, path), &r) {
            checkWatchdogOutlastsFuzz(experiment, layer: layer, defaults: defaults, node: node, path: path, &r)
        }
        return experiment
    }

    private func checkSize(_ plan: Plan, _ nodes: Node.Sequence, indexOf: [String: Int], _ r: inout PlanReader) {
        for (i, e) in plan.experiments.enumerated() {
            guard let most = e.threads.max(), most > PlanDefaults.maxThreadsWithoutOptIn else { continue }
            let index = indexOf[e.name] ?? i
            let path = PlanKeyPath.root.appending("experiments").appending(index)
            r.fail(path, nodes[index], "\(most) threads in one trial is more than \(PlanDefaults.maxThreadsWithoutOptIn): "
                   + "say allow_large: true at the top of the plan (or run with --allow-large) if that is what you mean")
        }
        let planned = TrialMatrix.plannedSeconds(plan)
        if planned > PlanDefaults.maxPlannedSecondsWithoutOptIn {
            r.fail(.root, nil, "the plan would run for about \(Quantities.format(nanoseconds: UInt64(Swift.min(planned, 1e10) * 1e9))) "
                   + "(its trials' warm-ups and windows added up), more than \(Int(PlanDefaults.maxPlannedSecondsWithoutOptIn / 3600))h: "
                   + "say allow_large: true at the top of the plan (or run with --allow-large) if that is what you mean")
        }
    }
}
