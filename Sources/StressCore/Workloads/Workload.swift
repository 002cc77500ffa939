/// What `stressbench list` and the plan loader know about a workload.
public struct WorkloadDescriptor: Sendable {
    /// The name plans use (`workload: bank`).
    public let name: String
    /// One line saying what shared state it models and what it checks.
    public let summary: String
    /// Its parameters, validated by the plan loader.
    public let parameters: [ParameterSpec]
    /// Hidden workloads (fault injection for the harness's own tests) are left out
    /// of `list` unless asked for.
    public let hidden: Bool

    /// A workload's name, summary and parameters, for ``Workload/descriptor``.
    /// - Parameters:
    ///   - name: The name plans and `stressbench list` use.
    ///   - summary: One line saying what the workload exercises.
    ///   - parameters: The parameters a plan may set, with their defaults and ranges.
    ///   - hidden: True to leave it out of `stressbench list` (a fixture, a calibration aid).
    public init(name: String, summary: String, parameters: [ParameterSpec] = [], hidden: Bool = false) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
        self.hidden = hidden
    }
}

/// What the engine knows at the end of a trial, handed to final checks.
public struct RunTotals: Sendable {
    /// Completed operations by operation name, over all workers (warm-up included:
    /// final checks look at the state, which warm-up changed too).
    public let operationCounts: [String: Int]
    /// The workers' tallies added slot by slot.
    public let tally: Tally
    /// The number of workers.
    public let threads: Int

    /// Completed operations named `name` (0 when none ran).
    ///
    /// - Parameter name: An operation's name.
    /// - Returns: How many times it completed, all workers, warm-up included; 0 for an unknown name.
    public func count(of name: String) -> Int { operationCounts[name] ?? 0 }

    /// Totals as the engine builds them.
    package init(operationCounts: [String: Int], tally: Tally, threads: Int) {
        self.operationCounts = operationCounts
        self.tally = tally
        self.threads = threads
    }
}

/// A workload: shared state, the operations workers run on it, and the invariants
/// that must hold.
///
/// A workload never locks anything itself. It says, step by step, which access
/// each part of an operation needs (``Step/Access``), and the strategy under test
/// provides that access. Register a workload type with
/// ``StressRegistry/register(workload:)``; the built-in ones use exactly this API.
///
/// The state is a class the workload designs for the trial. It is `Sendable`
/// because every worker touches it; its safety is exactly what the strategy under
/// test is there to provide, so state classes are `@unchecked Sendable` with
/// storage in raw memory (see the built-in workloads): a racy strategy then
/// produces wrong values, which the checks catch, rather than corrupting Swift's
/// own bookkeeping.
public protocol Workload: Sendable {
    /// The shared state one trial works on.
    associatedtype State: AnyObject & Sendable

    /// The workload's name, summary and parameters, as plans and `stressbench list` see them.
    static var descriptor: WorkloadDescriptor { get }

    /// Makes the workload from validated parameters. Throw a
    /// ``WorkloadParameterError`` for a combination that makes no sense; the plan
    /// loader calls this while validating, so the error reaches the user before
    /// anything runs.
    ///
    /// - Parameter parameters: The plan's values for the declared parameters, defaults filled in.
    /// - Throws: ``WorkloadParameterError`` for values that make no sense together.
    init(parameters: WorkloadParameters) throws

    /// How many independently guarded resources the state has (the strategy makes
    /// one lock, queue or actor per resource). Default 1.
    var resourceCount: Int { get }

    /// Fresh state for a trial with `threads` workers.
    ///
    /// - Parameter threads: The number of workers that will share it.
    /// - Returns: The state, as no operation has touched it.
    func makeState(threads: Int) -> State

    /// The operations, with their weights. Called once per trial.
    ///
    /// - Returns: The operations the workers pick from.
    func operations() -> [StressOperation<State>]

    /// The same operations written lock-free (atomics, compare-and-swap), for
    /// strategies with no critical sections (``StrategyDescriptor/lockFree``, the
    /// `atomic` baseline). Nil (the default) when the state is more than a word
    /// and has no lock-free form; such a workload is not paired with those strategies.
    ///
    /// - Returns: The lock-free operations, or nil when there is no lock-free form.
    func lockFreeOperations() -> [StressOperation<State>]?

    /// Invariants checked once all workers have stopped (and the strategy has
    /// drained any asynchronous work). Return one message per broken invariant.
    ///
    /// - Parameters:
    ///   - state: The state after the run.
    ///   - totals: What the workers did: operation counts and their summed tally.
    /// - Returns: One message per broken invariant; empty when all hold.
    func finalCheck(_ state: State, _ totals: RunTotals) -> [String]

    /// Figures of the workload's own, read after the run (for example the largest
    /// number of readers seen inside a critical section at once). They appear in
    /// result records under `workloadMetrics`. Default: none.
    ///
    /// - Parameter state: The state after the run.
    /// - Returns: The figures, by name.
    func metrics(_ state: State) -> [String: Double]

    /// The state in one line ("count 3", "balances 40 60"), for a
    /// controlled trial's trace: shown after every operation, so a reader
    /// sees what each one left behind. Called only under controlled
    /// scheduling, by the one worker that runs. Default: nil (no state column).
    ///
    /// - Parameter state: The state now.
    /// - Returns: A short line, or nil.
    func describe(_ state: State) -> String?
}

extension Workload {
    /// Shorthand for this workload's ``StressOperation`` type: `[WorkloadOperation]`
    /// reads as `[StressOperation<State>]`. (The type was named `Operation` once,
    /// which Foundation's `NSOperation` shadowed in every file importing it.)
    public typealias WorkloadOperation = StressCore.StressOperation<State>

    /// One guarded resource.
    public var resourceCount: Int { 1 }

    /// No lock-free form.
    ///
    /// - Returns: Nil: no lock-free form.
    public func lockFreeOperations() -> [StressOperation<State>]? { nil }

    /// No final invariants.
    ///
    /// - Parameters:
    ///   - state: The state after the run (unused).
    ///   - totals: What the workers did (unused).
    /// - Returns: No messages.
    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] { [] }

    /// No metrics of its own.
    ///
    /// - Parameter state: The state after the run (unused).
    /// - Returns: No figures.
    public func metrics(_ state: State) -> [String: Double] { [:] }

    /// No description of the state.
    ///
    /// - Parameter state: The state now (unused).
    /// - Returns: Nil.
    public func describe(_ state: State) -> String? { nil }
}
