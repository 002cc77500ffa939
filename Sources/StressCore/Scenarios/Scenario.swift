/// What `stressbench list` and the plan loader know about a scenario.
public struct ScenarioDescriptor: Sendable {
    /// The name plans use (`scenario: store-buffering`).
    public let name: String
    /// One line saying what races against what, and what is checked.
    public let summary: String
    /// Its parameters, validated by the plan loader.
    public let parameters: [ParameterSpec]
    /// Hidden scenarios (for stressbench's own tests) are left out of `list`
    /// unless asked for.
    public let hidden: Bool
    /// Whether the scenario looks for weak-memory outcomes (a litmus test,
    /// such as store buffering's `0, 0`): outcomes that only a processor
    /// running the roles at once can show. A controlled trial runs one worker
    /// at a time and is sequentially consistent, so such a scenario is
    /// refused under `schedule: controlled`.
    package var needsWeakMemory = false
    /// The most rounds a stride may batch, and so the states made up front
    /// (1,024 by default). A scenario whose state is large, or whose rounds
    /// are slow anyway (a linearizability check's), keeps it small.
    package var maxStride = 1_024

    /// A scenario's name, summary and parameters, for ``Scenario/descriptor``.
    /// - Parameters:
    ///   - name: The name plans and `stressbench list` use.
    ///   - summary: One line saying what the scenario races.
    ///   - parameters: The parameters a plan may set, with their defaults and ranges.
    ///   - hidden: True to leave it out of `stressbench list` (a fixture, a calibration aid).
    public init(name: String, summary: String, parameters: [ParameterSpec] = [], hidden: Bool = false) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
        self.hidden = hidden
    }

    /// A litmus test's descriptor: one that needs weak memory to show what it
    /// looks for (``needsWeakMemory``).
    package init(litmus name: String, summary: String, parameters: [ParameterSpec]) {
        self.init(name: name, summary: summary, parameters: parameters)
        needsWeakMemory = true
    }
}

/// One role of a scenario: the steps one worker runs, once per round.
///
/// A role is written with the same ``Step``s as a workload's operations, so it
/// asks the strategy under test for the same accesses (`.write`, `.read`,
/// `.nestedWrite`, `.unguarded`) and one scenario runs under every strategy.
/// A step's body may also call a team's own code.
public struct Role<State: AnyObject & Sendable>: Sendable {
    /// The role's name, shown in reports and stall reports.
    public let name: String
    /// The steps, run in order, once per round.
    public let steps: [Step<State>]
    /// Whether the role's steps run on the main thread (the role's worker
    /// hands each step's body to the main queue with a `sync` and waits for
    /// it), as UI code or a `@MainActor` callback would. Under controlled
    /// scheduling the main thread then takes part in the schedule, where it
    /// serves the main queue itself (a trial process; an in-process run
    /// started from the main thread); elsewhere a controlled trial of the
    /// scenario is refused with an error saying so.
    public let onMainThread: Bool

    /// A role made of `steps`, run on its own worker.
    ///
    /// - Parameters:
    ///   - name: The role's name, shown in reports.
    ///   - steps: The steps the role runs once per round, in order.
    public init(_ name: String, steps: [Step<State>]) {
        self.init(name, onMainThread: false, steps: steps)
    }

    /// A role made of `steps`, placed on the main thread or not.
    ///
    /// - Parameters:
    ///   - name: The role's name, shown in reports.
    ///   - onMainThread: Whether its steps run on the main thread.
    ///   - steps: The steps the role runs once per round, in order.
    public init(_ name: String, onMainThread: Bool, steps: [Step<State>]) {
        self.name = name
        self.onMainThread = onMainThread
        self.steps = steps
    }

    /// The steps as the role's worker runs them: as they are, or, for a role
    /// on the main thread, each body handed to the main queue. Nil when a
    /// step cannot be handed over (a wait or an `await` runs on its worker).
    package var workerSteps: [Step<State>]? {
        guard onMainThread else { return steps }
        guard steps.allSatisfy({ $0.predicate == nil && $0.asyncBody == nil && !$0.access.waits }) else { return nil }
        return steps.map { step in
            let body = step.body
            return Step(step.name, access: step.access) { state, frame in
                StressQueue.main.sync { body(state, &frame) }
            }
        }
    }
}

/// What one round of a scenario came to: a few small integers, such as the
/// values each role read. Shown as the values joined by `, ` (`0, 0`), and
/// counted per trial.
///
/// Only the values make an outcome: two rounds with the same values have the
/// same outcome. A round may also carry a ``violation`` message of its own
/// (`RoundOutcome(2, 1).violating("the factory ran twice")`), which the
/// engine records as a violation of that round whatever the grade.
public struct RoundOutcome: Sendable, Hashable, CustomStringConvertible {
    private var v0 = 0, v1 = 0, v2 = 0, v3 = 0
    /// How many values (0 to 4).
    public private(set) var count: Int = 0
    /// A violation this round reports besides its grade (nil for none).
    public private(set) var violation: String?

    /// The most values an outcome holds.
    public static let maxValues = 4

    /// An outcome of no values (a scenario whose rounds only check, `empty`).
    public init() {}
    /// An outcome of one value.
    ///
    /// - Parameter a: The value.
    public init(_ a: Int) { (v0, count) = (a, 1) }
    /// An outcome of two values.
    ///
    /// - Parameters:
    ///   - a: The first value.
    ///   - b: The second value.
    public init(_ a: Int, _ b: Int) { (v0, v1, count) = (a, b, 2) }
    /// An outcome of three values.
    ///
    /// - Parameters:
    ///   - a: The first value.
    ///   - b: The second value.
    ///   - c: The third value.
    public init(_ a: Int, _ b: Int, _ c: Int) { (v0, v1, v2, count) = (a, b, c, 3) }
    /// An outcome of four values.
    ///
    /// - Parameters:
    ///   - a: The first value.
    ///   - b: The second value.
    ///   - c: The third value.
    ///   - d: The fourth value.
    public init(_ a: Int, _ b: Int, _ c: Int, _ d: Int) { (v0, v1, v2, v3, count) = (a, b, c, d, 4) }

    /// An outcome of up to four `values` (more are an error of the scenario, which traps).
    ///
    /// - Parameter values: The values, at most ``maxValues`` of them.
    public init(values: [Int]) {
        precondition(values.count <= Self.maxValues, "a round's outcome holds at most \(Self.maxValues) values")
        count = values.count
        for (i, v) in values.enumerated() { self[i] = v }
    }

    /// Value `i`, `0..<count`.
    ///
    /// - Parameter i: The value's position, `0..<count`.
    /// - Returns: The value.
    public subscript(_ i: Int) -> Int {
        get {
            switch i {
            case 0: return v0
            case 1: return v1
            case 2: return v2
            default: return v3
            }
        }
        set {
            switch i {
            case 0: v0 = newValue
            case 1: v1 = newValue
            case 2: v2 = newValue
            default: v3 = newValue
            }
        }
    }

    /// The outcome's values, in order, as an array.
    public var values: [Int] { (0..<count).map { self[$0] } }

    /// This outcome, reporting `message` as a violation of its round.
    ///
    /// - Parameter message: What was wrong with the round.
    /// - Returns: This outcome, marked as a violation with `message`.
    public func violating(_ message: String) -> RoundOutcome {
        var copy = self
        copy.violation = message
        return copy
    }

    /// `0, 0`; `()` for an outcome of no values.
    public var description: String { count == 0 ? "()" : values.map(String.init).joined(separator: ", ") }

    public static func == (a: RoundOutcome, b: RoundOutcome) -> Bool {
        a.count == b.count && a.v0 == b.v0 && a.v1 == b.v1 && a.v2 == b.v2 && a.v3 == b.v3
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for i in 0..<count { hasher.combine(self[i]) }
    }
}

/// How a scenario judges one of its outcomes.
public enum OutcomeGrade: Sendable, Equatable {
    /// Expected: nothing to see.
    case acceptable
    /// Allowed, but worth seeing (the relaxed memory-model behaviour a litmus
    /// test exists to show), with what it means.
    case interesting(String)
    /// Must never happen: each round that shows it is a violation, with what it means.
    case forbidden(String)

    /// `acceptable`, `interesting` or `forbidden`, as result records write it.
    public var name: String {
        switch self {
        case .acceptable: return "acceptable"
        case .interesting: return "interesting"
        case .forbidden: return "forbidden"
        }
    }

    /// What the outcome means, for interesting and forbidden ones.
    public var meaning: String? {
        switch self {
        case .acceptable: return nil
        case .interesting(let m), .forbidden(let m): return m
        }
    }
}

/// A scenario: a one-shot, multi-role concurrency test with graded outcomes.
///
/// Where a ``Workload`` is a closed loop of identical workers picking weighted
/// operations over one long-lived state, a scenario is the litmus test that
/// jcstress made standard: two or more roles that each do one specific thing,
/// once, to fresh state, after which an arbiter looks at what happened. Role
/// `i` always runs on worker `i`, so a trial has as many workers as the
/// scenario has roles. Rounds run back to back, millions per second where the
/// roles are cheap: each worker runs its role over a stride of fresh states
/// between two barriers (see the scenarios guide for what that does to how
/// closely the roles overlap), then the workers share out the arbitration.
///
/// Every round's outcome is counted and graded (``grade(_:)``): a forbidden
/// outcome is a violation, recorded with its round, the trial's seed and the
/// command that reruns it. Fuzzing applies per round: PCT draws a priority
/// order and change points afresh for each one, and a stagger delays each
/// role's start. A round that does not complete within `deadlock_after` is a
/// stall, reported as a `deadlock` or a `hang` naming each role and where it is.
///
/// Register a scenario type with ``StressRegistry/register(scenario:)``; the
/// built-in ones (`Sources/StressCore/Scenarios/BuiltIn/`) use this API.
public protocol Scenario: Sendable {
    /// One round's state. Roles write what they saw into it; the arbiter reads it.
    associatedtype State: AnyObject & Sendable

    /// The scenario's name, summary and parameters, as plans and `stressbench list` see them.
    static var descriptor: ScenarioDescriptor { get }

    /// Makes the scenario from validated parameters (throw a
    /// ``WorkloadParameterError`` for a combination that makes no sense).
    ///
    /// - Parameter parameters: The plan's values for the declared parameters, defaults filled in.
    /// - Throws: ``WorkloadParameterError`` for values that make no sense together.
    init(parameters: WorkloadParameters) throws

    /// How many independently guarded resources a round's state has (the
    /// strategy makes one lock, queue or actor per resource, shared by every
    /// round). Default 1.
    var resourceCount: Int { get }

    /// The roles, two or more; role `i` runs on worker `i`.
    ///
    /// - Returns: The roles, in worker order.
    func roles() -> [Role<State>]

    /// A fresh state for one round.
    ///
    /// - Returns: A state no role has touched.
    func makeState() -> State

    /// The state for the next round, after `state`'s round was arbitrated:
    /// `state` itself, put back as ``makeState()`` makes it (cheapest), or a
    /// new one. The default makes a new one.
    ///
    /// - Parameter state: The state of the round just arbitrated.
    /// - Returns: The state for the next round.
    func reset(_ state: State) -> State

    /// Runs after every role of the round has finished: what the round came to.
    ///
    /// - Parameter state: The round's state, after every role has finished.
    /// - Returns: The round's outcome: the values that tell rounds apart.
    func arbiter(_ state: State) -> RoundOutcome

    /// How an outcome is judged. Called once per distinct outcome per worker,
    /// not per round.
    ///
    /// - Parameter outcome: One distinct outcome of the rounds.
    /// - Returns: Whether it is acceptable, interesting or forbidden.
    func grade(_ outcome: RoundOutcome) -> OutcomeGrade
}

extension Scenario {
    /// One guarded resource.
    public var resourceCount: Int { 1 }

    /// A new state for every round.
    ///
    /// - Parameter state: The state of the round just arbitrated (unused).
    /// - Returns: A new state from ``makeState()``.
    public func reset(_ state: State) -> State { makeState() }
}
