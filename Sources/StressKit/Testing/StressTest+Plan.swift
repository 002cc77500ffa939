import Yams
import StressCore
import StressRunner

/// A stress test's settings as a plan: written as the YAML tree a plan file
/// would compose to (never as text), checked by ``PlanLoader``, and its
/// problems named by builder setting instead of plan key.
extension StressTest {
    /// What the test runs, for messages: `workload counter`.
    public var subject: String { "\(isScenario ? "scenario" : "workload") \(program)" }

    /// The validated plan these settings make: one experiment, the same
    /// ``Plan`` a plan file with the same keys becomes. Throws a
    /// ``StressTestError`` listing every setting at fault.
    package func plan(fileID: String = #fileID, line: Int = #line, column: Int = #column) throws(StressTestError) -> Plan {
        try plan(at: StressTestCallSite(fileID: fileID, line: line, column: column))
    }

    func plan(at site: StressTestCallSite) throws(StressTestError) -> Plan {
        var found = problems
        if case .unavailable(let reason) = isolation { found.append(.init(setting: "isolated()", reason)) }
        if interposes == true, isolation == .inProcess {
            found.append(.init(setting: "interpose()", "the interposer is preloaded (LD_PRELOAD) into the process a trial "
                               + "runs in, which must then be a child process: add .isolated() (StressKitTesting), "
                               + "or .isolated(in: self) in an XCTest method"))
        }
        if let all = expectedOutcomes, !expectedPerStrategy.isEmpty {
            // The plan's `expect` is either one list or a mapping; the list
            // given beside a mapping applies to the strategies it leaves out.
            for outcome in all where !Expectation.expectable.contains(outcome) {
                found.append(.init(setting: "expect", "'\(outcome.rawValue)' is not an outcome a test can expect "
                                   + "(expected one of \(Expectation.expectable.map(\.rawValue).joined(separator: ", ")))"))
            }
        }
        guard found.isEmpty else { throw StressTestError(callSite: site.description, subject: subject, problems: found) }
        var plan: Plan
        do {
            plan = try PlanLoader(registry: registry).load(tree: tree, file: "StressTest at \(site)")
        } catch {
            throw StressTestError(callSite: site.description, subject: subject, problems: error.problems.map(Self.translated))
        }
        if let all = expectedOutcomes, !expectedPerStrategy.isEmpty { plan.experiments[0].expect.all = all }
        return plan
    }

    /// The plan as the tree a plan file with these keys composes to.
    var tree: Node {
        var experiment: [(Node, Node)] = [(Self.plain(isScenario ? "scenario" : "workload"), Self.text(program))]
        func add(_ key: String, _ value: Node?) {
            if let value { experiment.append((Self.plain(key), value)) }
        }
        add("name", experimentName.map(Self.text))
        if !parameters.isEmpty {
            add("parameters", Node(parameters.sorted { $0.key < $1.key }.map { (Self.text($0.key), Self.node($0.value)) }))
        }
        add("strategies", strategyNames.map { Node($0.map(Self.text)) })
        add("threads", threadCounts.map { Node($0.map { Self.plain(String($0)) }) })
        switch stop {
        case .duration(let ns)?: add("duration", Self.duration(ns))
        case .operations(let n)?: add("ops", Self.plain(String(n)))
        case nil: break
        }
        add("warmup", warmupNs.map(Self.duration))
        add("repetitions", repetitionCount.map { Self.plain(String($0)) })
        add("seed", baseSeed.map { Self.plain(String($0)) })
        add("fuzz", fuzzSettings.map(Self.node))
        add("deadlock_after", deadlockAfterNs.map(Self.duration))
        add("timeout", timeoutNs.map(Self.duration))
        add("stop_on_violation", stopsOnViolation.map { Self.plain(String($0)) })
        add("executor", executorChoice.map { Self.plain($0.rawValue) })
        add("schedule", scheduleMode.map { Self.plain($0.rawValue) })
        add("max_decisions", maxDecisionCount.map { Self.plain(String($0)) })
        add("explore", exploreKeys.map { keys in Node(keys.map { (Self.plain($0.key), Self.plain($0.value)) }) })
        add("hunt", huntSeconds.map { Self.plain("\($0)s") })
        add("interpose", interposes.map { Self.plain(String($0)) })
        add("shrink", shrinkSeconds.map { $0 == 0 ? Self.plain("false") : Node([(Self.plain("seconds"), Self.plain(String($0)))]) })
        if !expectedPerStrategy.isEmpty {
            add("expect", Node(expectedPerStrategy.map { (Self.text($0.key), Self.outcomes($0.outcomes)) }))
        } else {
            add("expect", expectedOutcomes.map(Self.outcomes))
        }
        let name = experimentName ?? program
        return Node([(Self.plain("name"), Self.text(name)), (Self.plain("experiments"), Node([Node(experiment)]))])
    }

    // MARK: - Nodes

    private static func plain(_ word: String) -> Node { Node(word, .implicit, .plain) }
    private static func text(_ text: String) -> Node { Node(text, .implicit, .singleQuoted) }
    private static func duration(_ ns: UInt64) -> Node { plain("\(ns)ns") }
    private static func outcomes(_ outcomes: [TrialOutcome]) -> Node { Node(outcomes.map { plain($0.rawValue) }) }

    private static func node(_ value: ParameterValue) -> Node {
        switch value {
        case .integer(let v): plain(String(v))
        case .number(let v): plain(String(v))
        case .text(let v): text(v)
        case .flag(let v): plain(String(v))
        }
    }

    /// A profile's name when the settings are its preset, else every setting.
    private static func node(_ fuzz: FuzzSettings) -> Node {
        if fuzz == FuzzSettings(fuzz.profile) { return plain(fuzz.profile.rawValue) }
        var pairs: [(String, Node)] = [
            ("profile", plain(fuzz.profile.rawValue)),
            ("yield", plain(String(fuzz.yieldProbability))), ("spin", plain(String(fuzz.spinProbability))),
            ("spin_min", duration(fuzz.spinMinNanoseconds)), ("spin_max", duration(fuzz.spinMaxNanoseconds)),
            ("sleep", plain(String(fuzz.sleepProbability))),
            ("sleep_min", duration(fuzz.sleepMinNanoseconds)), ("sleep_max", duration(fuzz.sleepMaxNanoseconds)),
            ("starve", plain(String(fuzz.starveProbability))), ("starve_share", plain(String(fuzz.starveShare))),
            ("starve_min", duration(fuzz.starveMinNanoseconds)), ("starve_max", duration(fuzz.starveMaxNanoseconds)),
            ("pct_depth", plain(String(fuzz.pctDepth))), ("pct_wait_cap", duration(fuzz.pctWaitCapNanoseconds)),
            ("stagger", duration(fuzz.staggerMaxNanoseconds)),
        ]
        if let scope = fuzz.pctScope { pairs.append(("pct_scope", plain(scope.rawValue))) }
        return Node(pairs.map { (plain($0.0), $0.1) })
    }

    // MARK: - Problems by setting

    /// The builder method each experiment key is set by.
    private static let settingNames = [
        "workload": "workload", "scenario": "scenario", "name": "named", "parameters": "parameters",
        "strategies": "strategies", "threads": "threads", "duration": "duration", "ops": "ops", "warmup": "warmup",
        "repetitions": "repetitions", "seed": "seed", "fuzz": "fuzz", "deadlock_after": "deadlockAfter",
        "timeout": "timeout", "stop_on_violation": "stopOnViolation", "executor": "executor", "expect": "expect",
        "schedule": "schedule", "max_decisions": "maxDecisions", "explore": "explore", "shrink": "shrink",
        "hunt": "hunt",
    ]

    /// A plan problem as a problem of a builder setting: `experiments[0].strategies[1]`
    /// becomes `strategies[1]`, `experiments[0].parameters.pages` `parameters["pages"]`.
    static func translated(_ problem: PlanProblem) -> StressTestError.Problem {
        var parts = problem.path.components[...]
        if parts.first == .key("experiments") {
            parts = parts.dropFirst()
            if case .index? = parts.first { parts = parts.dropFirst() }
        }
        var setting = ""
        for part in parts {
            switch part {
            case .key(let key) where setting.isEmpty: setting = settingNames[key] ?? key
            case .key(let key): setting += "[\"\(key)\"]"
            case .index(let i): setting += "[\(i)]"
            }
        }
        var message = problem.message
        if setting.hasPrefix("parameters["), message.hasPrefix("unknown key ") {
            message = "unknown parameter " + message.dropFirst("unknown key ".count)
        }
        return StressTestError.Problem(setting: setting, message)
    }
}
