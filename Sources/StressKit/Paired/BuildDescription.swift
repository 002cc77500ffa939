import Foundation

/// What one executable says about how it would run a plan: its version and
/// build, the exact trials it makes of the plan, and the shape of every
/// workload, scenario and strategy those trials use. `stressbench ab` asks
/// each of its two executables for this (the hidden `_describe` command) and
/// runs nothing unless both make the same trials of the same workloads
/// (``BuildComparison``).
///
/// The shape of a workload is what decides what one of its operations is:
/// its parameters with their defaults, and for the parameters the plan uses,
/// each operation's name and weight and each step's name and the access it
/// asks the strategy for. The code inside a step is not in it: that, and the
/// strategies' code, is what a paired comparison is there to measure.
package struct BuildDescription: Sendable, Codable, Equatable {
    /// The schema identifier of this document.
    public static let currentSchema = "stressbench.describe/1"

    /// ``currentSchema`` when written.
    public var schema: String
    /// `stressbench <version>`.
    public var tool: String
    /// The schema of the records the executable's `_trial` command writes
    /// (``RunReport/currentSchema``): the parent must read them as its own.
    public var resultsSchema: String
    /// `debug` or `release`.
    public var buildConfiguration: String
    /// The compiler it was built with.
    public var swiftVersion: String
    /// The plan's name.
    public var plan: String
    /// Every trial the executable makes of the plan, in its order.
    public var trials: [TrialSpec]
    /// The workloads and scenarios the trials use.
    public var workloads: [WorkloadShape]
    /// The strategies the trials use.
    public var strategies: [StrategyShape]

    /// The description of `trials` as this process's `registry` knows them.
    public init(plan: String, trials: [TrialSpec], registry: StressRegistry) {
        schema = Self.currentSchema
        tool = "stressbench \(StressKitVersion.current)"
        resultsSchema = RunReport.currentSchema
        buildConfiguration = EnvironmentInfo.current.buildConfiguration
        swiftVersion = EnvironmentInfo.current.swiftVersion
        self.plan = plan
        self.trials = trials
        var parametersByWorkload: [String: [WorkloadParameters]] = [:]
        var order: [String] = []
        for t in trials {
            if parametersByWorkload[t.workload] == nil { order.append(t.workload) }
            if parametersByWorkload[t.workload, default: []].contains(t.parameters) == false {
                parametersByWorkload[t.workload, default: []].append(t.parameters)
            }
        }
        workloads = order.map { WorkloadShape(name: $0, parameterSets: parametersByWorkload[$0] ?? [], registry: registry) }
        var strategyNames: [String] = []
        for t in trials where !strategyNames.contains(t.strategy) { strategyNames.append(t.strategy) }
        strategies = strategyNames.map { StrategyShape(name: $0, registry: registry) }
    }

    /// A short fingerprint of the trials and workloads (16 hex digits), the
    /// same for every executable that would run the plan the same way.
    public var fingerprint: String {
        struct Measured: Encodable { var trials: [TrialSpec]; var workloads: [WorkloadShape] }
        let data = (try? ResultCoding.encoder(pretty: false).encode(Measured(trials: trials, workloads: workloads))) ?? Data()
        let hash = SplitMix64.hash(String(decoding: data, as: UTF8.self))
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// What identifies a workload or scenario's operations, apart from their code.
package struct WorkloadShape: Sendable, Codable, Equatable {
    /// Its registered name.
    public var name: String
    /// `workload` or `scenario`; `missing` when the executable has no such name.
    public var kind: String
    /// Its parameters: `name: type; default value`.
    public var parameters: [String]
    /// For every parameter set the plan uses: its operations (or a
    /// scenario's roles) with their steps.
    public var forms: [Form]

    /// The operations of one parameter set.
    public struct Form: Sendable, Codable, Equatable {
        /// The parameters, in their compact form (`accounts=8, amount=3`).
        public var parameters: String
        /// `name ×weight: step (access), step (access)`, one per operation or
        /// role; or why the workload could not be made with these parameters.
        public var operations: [String]
        /// Whether it has lock-free operations for these parameters.
        public var lockFree: Bool?
    }

    /// The shape of `name` in `registry`, for `parameterSets`.
    init(name: String, parameterSets: [WorkloadParameters], registry: StressRegistry) {
        self.name = name
        if let w = registry.workload(named: name) {
            kind = "workload"
            parameters = w.descriptor.parameters.map(Self.describe)
            forms = parameterSets.map { p in
                Form(parameters: p.compactDescription, operations: Self.attempt { try w.operationShapes(p) }, lockFree: w.supportsLockFree(p))
            }
        } else if let s = registry.scenario(named: name) {
            kind = "scenario"
            parameters = s.descriptor.parameters.map(Self.describe)
            forms = parameterSets.map { p in Form(parameters: p.compactDescription, operations: Self.attempt { try s.roleShapes(p) }) }
        } else {
            kind = "missing"
            parameters = []
            forms = []
        }
    }

    private static func describe(_ p: ParameterSpec) -> String {
        "\(p.name): \(p.typeDescription); default \(p.defaultValue)"
    }

    private static func attempt(_ body: () throws -> [String]) -> [String] {
        do { return try body() } catch { return ["cannot be made: \(error)"] }
    }

    /// `name ×weight: step (access), ...` for steps of an operation or role.
    static func line<State>(_ name: String, weight: Double?, _ steps: [Step<State>]) -> String {
        let w = weight.map { " ×" + Formatting.digits($0) } ?? ""
        return "\(name)\(w): " + steps.map { "\($0.name) (\(describe($0.access)))" }.joined(separator: ", ")
    }

    static func describe(_ access: StepAccess) -> String {
        switch access {
        case .unguarded: return "unguarded"
        case .read(let r): return "read \(r)"
        case .write(let r): return "write \(r)"
        case .nestedWrite(let outer, let inner): return "nested write \(outer) then \(inner)"
        case .nestedWrites(let path): return "nested writes " + path.resources.map(String.init).joined(separator: " then ")
        case .hold(let r): return "hold \(r)"
        case .release(let r): return "release \(r)"
        case .waitUntil(let r, let timeoutNs): return "wait until on \(r) (timeout \(timeoutNs) ns)"
        case .awaiting: return "async"
        }
    }
}

/// What identifies a strategy: its descriptor, apart from its summary.
package struct StrategyShape: Sendable, Codable, Equatable {
    /// Its registered name.
    public var name: String
    /// `threads` or `tasks`, reentrant, shared reads, and the rest of its
    /// descriptor, as `key=value` words; `missing` when the executable has
    /// no such strategy.
    public var traits: [String]

    init(name: String, registry: StressRegistry) {
        self.name = name
        guard let d = registry.strategy(named: name)?.descriptor else {
            traits = ["missing"]
            return
        }
        traits = [
            "execution=\(d.execution.rawValue)", "reentrant=\(d.reentrant)", "reentry=\(d.reentry)",
            "sharedReads=\(d.sharedReads)", "synchronizes=\(d.synchronizes)", "asynchronousWrites=\(d.asynchronousWrites)",
            "lockFree=\(d.lockFree)", "primitive=\(d.primitive)", "singleDomain=\(d.singleDomain)",
        ]
    }
}
