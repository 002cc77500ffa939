/// A registered workload type, erased so the engine and the plan loader can use
/// it by name.
package struct WorkloadEntry: Sendable {
    /// Name, summary, parameters.
    public let descriptor: WorkloadDescriptor
    /// Builds the workload from parameters, to check them (throws what `init` throws).
    package let validate: @Sendable (WorkloadParameters) throws -> Void
    /// Runs one trial of it in this process.
    package let run: @Sendable (WorkloadParameters, StrategyEntry, TrialSettings, @escaping @Sendable (StallReport) -> Void) throws -> EngineOutput
    /// Whether it has a lock-free form for these parameters (see ``Workload/lockFreeOperations()``).
    package let supportsLockFree: @Sendable (WorkloadParameters) -> Bool
    /// What its steps need of a strategy, for these parameters.
    package let stepNeeds: @Sendable (WorkloadParameters) -> StepNeeds
    /// Its operations for these parameters, one line each: name, weight, and
    /// every step's name and access (``WorkloadShape``).
    let operationShapes: @Sendable (WorkloadParameters) throws -> [String]
    /// Runs one trial of its linearizability check (a plan's `check:
    /// linearizable`); nil when it has no sequential model.
    package let runLinearizability: (@Sendable (WorkloadParameters, StrategyEntry, TrialSettings, @escaping @Sendable (StallReport) -> Void) throws -> EngineOutput)?

    init<W: Workload>(_ type: W.Type) {
        if let linearizable = W.self as? any LinearizableWorkload.Type {
            runLinearizability = Self.linearizabilityTrial(linearizable)
        } else {
            runLinearizability = nil
        }
        descriptor = W.descriptor
        validate = { _ = try W(parameters: $0) }
        operationShapes = { try W(parameters: $0).operations().map { WorkloadShape.line($0.name, weight: $0.weight, $0.steps) } }
        supportsLockFree = { (try? W(parameters: $0).lockFreeOperations()) != nil }
        stepNeeds = { parameters in
            guard let workload = try? W(parameters: parameters) else { return StepNeeds() }
            return StepNeeds(workload.operations().flatMap { $0.steps.map(\.access) })
        }
        run = { parameters, strategy, settings, onStall in
            let workload = try W(parameters: parameters)
            // Each run of a search from a fresh strategy instance (a stalled
            // run keeps its instance's locks held for good).
            return try ScheduleSearch.run(settings, scenario: false, onStall: onStall) { settings, onStall in
                let instance = try strategy.make(StrategySetup(resources: workload.resourceCount, threads: settings.threads))
                return try TrialEngine.run(workload, strategy: instance, settings: settings, onStall: onStall)
            }
        }
    }
}

extension WorkloadEntry {
    /// The trial runner of `type`'s linearizability check.
    private static func linearizabilityTrial<L: LinearizableWorkload>(
        _ type: L.Type
    ) -> @Sendable (WorkloadParameters, StrategyEntry, TrialSettings, @escaping @Sendable (StallReport) -> Void) throws -> EngineOutput {
        { try L.runLinearizabilityTrial(parameters: $0, strategy: $1, settings: $2, onStall: $3) }
    }
}

/// A registered scenario type, erased so the engine and the plan loader can
/// use it by name.
package struct ScenarioEntry: Sendable {
    /// Name, summary, parameters.
    public let descriptor: ScenarioDescriptor
    /// Builds the scenario from parameters and says how many roles it has
    /// (throws what `init` throws): the plan loader checks the thread count with it.
    package let roleCount: @Sendable (WorkloadParameters) throws -> Int
    /// What its steps need of a strategy, for these parameters.
    package let stepNeeds: @Sendable (WorkloadParameters) -> StepNeeds
    /// Its roles for these parameters, one line each: name and every step's
    /// name and access (``WorkloadShape``).
    let roleShapes: @Sendable (WorkloadParameters) throws -> [String]
    /// Runs one trial of it in this process.
    package let run: @Sendable (WorkloadParameters, StrategyEntry, TrialSettings, @escaping @Sendable (StallReport) -> Void) throws -> EngineOutput

    init<S: Scenario>(_ type: S.Type) {
        descriptor = S.descriptor
        roleCount = { try S(parameters: $0).roles().count }
        stepNeeds = { parameters in
            guard let scenario = try? S(parameters: parameters) else { return StepNeeds() }
            return StepNeeds(scenario.roles().flatMap { $0.steps.map(\.access) })
        }
        roleShapes = { try S(parameters: $0).roles().map { WorkloadShape.line($0.name, weight: nil, $0.steps) } }
        run = { parameters, strategy, settings, onStall in
            let scenario = try S(parameters: parameters)
            return try ScheduleSearch.run(settings, scenario: true, onStall: onStall) { settings, onStall in
                let instance = try strategy.make(StrategySetup(resources: scenario.resourceCount, threads: settings.threads))
                return try TrialEngine.run(scenario, strategy: instance, settings: settings, onStall: onStall)
            }
        }
    }
}

/// A registered strategy type, erased.
package struct StrategyEntry: Sendable {
    /// Name, summary, semantics.
    public let descriptor: StrategyDescriptor
    /// Makes an instance for one trial.
    public let make: @Sendable (StrategySetup) throws -> StrategyInstance
    /// Whether it can hold a resource from one step to a later one (it is a
    /// ``HoldingStrategy``: a lock and an unlock, not one block).
    public let canHoldAcrossSteps: Bool

    init<S: BlockingStrategy>(blocking type: S.Type) {
        descriptor = S.descriptor
        make = { .blocking(try S(setup: $0)) }
        canHoldAcrossSteps = S.self is any HoldingStrategy.Type
    }

    init<S: IsolatingStrategy>(isolating type: S.Type) {
        descriptor = S.descriptor
        make = { .isolating(try S(setup: $0)) }
        canHoldAcrossSteps = false
    }

    init(descriptor: StrategyDescriptor, canHoldAcrossSteps: Bool, make: @escaping @Sendable (StrategySetup) throws -> StrategyInstance) {
        self.descriptor = descriptor
        self.canHoldAcrossSteps = canHoldAcrossSteps
        self.make = make
    }

    /// Why this strategy cannot run steps that need `needs`, or nil when it can.
    package func cannotRun(_ needs: StepNeeds) -> String? {
        if needs.holdsAcrossSteps && !canHoldAcrossSteps {
            return "it cannot hold a resource across steps (its access is one block, not a lock and an unlock), "
                + "and the steps hold and release"
        }
        if needs.blockingOnly && descriptor.execution == .tasks {
            return "it runs tasks, and the steps hold a resource across steps or nest deeper than two, which needs a blocking strategy"
        }
        return nil
    }
}

/// The workloads and strategies a run can use, by name.
///
/// The engine never names a concrete workload or strategy; everything comes from
/// a registry. ``builtIn`` holds stressbench's own; a team adds its own types to a
/// copy and hands that to the command line (`StressBenchCLI`) or to
/// ``PlanRunner``:
///
/// ```swift
/// var registry = StressRegistry.builtIn
/// registry.register(workload: MyCacheWorkload.self)
/// registry.register(strategy: MyLockStrategy.self)
/// ```
///
/// Registering a name that exists replaces the earlier entry, so a built-in can be
/// swapped for a team's own version. Order of registration is the order `list`
/// and `strategies: all` use.
public struct StressRegistry: Sendable {
    /// The workloads, in registration order.
    package private(set) var workloads: [WorkloadEntry] = []
    /// The scenarios, in registration order.
    package private(set) var scenarios: [ScenarioEntry] = []
    /// The strategies, in registration order.
    package private(set) var strategies: [StrategyEntry] = []

    /// A registry with nothing in it; start from ``builtIn`` to keep the built-ins.
    public init() {}

    /// Adds (or replaces) a workload type (and removes a scenario of the same name).
    ///
    /// - Parameter type: The workload type.
    public mutating func register<W: Workload>(workload type: W.Type) {
        scenarios.removeAll { $0.descriptor.name == W.descriptor.name }
        upsert(&workloads, WorkloadEntry(type)) { $0.descriptor.name }
    }

    /// Adds (or replaces) a scenario type. A scenario and a workload may not
    /// share a name (trial ids and cells name either by it): registering one
    /// removes a workload of the same name.
    ///
    /// - Parameter type: The scenario type.
    public mutating func register<S: Scenario>(scenario type: S.Type) {
        workloads.removeAll { $0.descriptor.name == S.descriptor.name }
        upsert(&scenarios, ScenarioEntry(type)) { $0.descriptor.name }
    }

    /// Adds (or replaces) a blocking strategy type.
    ///
    /// - Parameter type: The strategy type.
    public mutating func register<S: BlockingStrategy>(strategy type: S.Type) {
        upsert(&strategies, StrategyEntry(blocking: type)) { $0.descriptor.name }
    }

    /// Adds (or replaces) an isolating (actor) strategy type.
    ///
    /// - Parameter type: The strategy type.
    public mutating func register<S: IsolatingStrategy>(strategy type: S.Type) {
        upsert(&strategies, StrategyEntry(isolating: type)) { $0.descriptor.name }
    }

    /// The workload named `name`.
    package func workload(named name: String) -> WorkloadEntry? {
        workloads.first { $0.descriptor.name == name }
    }

    /// The scenario named `name`.
    package func scenario(named name: String) -> ScenarioEntry? {
        scenarios.first { $0.descriptor.name == name }
    }

    /// The strategy named `name`.
    package func strategy(named name: String) -> StrategyEntry? {
        strategies.first { $0.descriptor.name == name }
    }

    /// The strategies `all` expands to: every one that is not hidden.
    package var defaultStrategies: [StrategyEntry] { strategies.filter { !$0.descriptor.hidden } }

    private func upsert<E>(_ list: inout [E], _ entry: E, name: (E) -> String) {
        if let i = list.firstIndex(where: { name($0) == name(entry) }) { list[i] = entry } else { list.append(entry) }
    }
}
