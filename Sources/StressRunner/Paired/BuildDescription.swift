import Foundation
import StressCore

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
