import StressCore
import StressRunner

/// A stress test written in Swift: a workload or scenario, the strategies it
/// runs under, thread counts, a window, fuzzing and a seed, run from a Swift
/// Testing `@Test` or an XCTest method, with no plan file and no YAML.
///
/// ```swift
/// @Test func pageViewsStayConsistent() async throws {
///     try await StressTest(PageViewsWorkload.self, parameters: ["pages": 8])
///         .strategies("pthread-mutex", "actor")
///         .threads(1, 4)
///         .ops(5_000)
///         .fuzz(.yield)
///         .seed(42)
///         .requireSuccess()
/// }
/// ```
///
/// Every setting is a method that returns a changed copy, so a test can keep
/// a base and vary it. A setting left out has the value a plan file's key
/// has when it is left out (the plan defaults): all strategies, threads 1, 2
/// and 4, a 1 s window after a 100 ms warm-up, seed 1, no fuzzing.
///
/// Underneath it is a plan: the settings become the same plan a plan file
/// becomes, checked by the same plan loader (an unknown strategy lists
/// the known ones; a parameter out of range names its range), and run by the
/// same ``PlanRunner``, in this process or, with ``isolated(as:)``, each
/// trial in a child process of the test binary.
///
/// - ``run(fileID:line:column:function:)-3cujl`` returns a ``StressTestReport``;
/// - ``requireSuccess(fileID:line:column:function:)-798wd`` throws a ``StressTestFailure``
///   whose message has the first violation (or deadlock, or crash cause),
///   the seed and a one-line command that reruns that trial;
/// - `expectSuccess()`, in the `StressKitTesting` module, records that
///   failure as a Swift Testing issue or an XCTest failure at the call.
///
/// Invalid settings throw a ``StressTestError`` naming each setting at fault.
public struct StressTest: Sendable {
    /// The workload's or scenario's registered name.
    public let program: String
    /// True when ``program`` names a scenario.
    public let isScenario: Bool
    /// Parameter values given (the rest take their defaults).
    public private(set) var parameters: [String: ParameterValue]
    /// The registry given (``StressRegistry/builtIn`` unless one was).
    public private(set) var baseRegistry: StressRegistry
    /// The types handed to the builder (a workload, scenario or strategy
    /// type), registered on top of ``baseRegistry``.
    var registrations: [@Sendable (inout StressRegistry) -> Void] = []

    /// The registry names are looked up in: ``baseRegistry`` with every type
    /// handed to the builder registered.
    public var registry: StressRegistry {
        var registry = baseRegistry
        for register in registrations { register(&registry) }
        return registry
    }

    var experimentName: String?
    var strategyNames: [String]?
    var threadCounts: [Int]?
    var stop: StopCondition?
    var warmupNs: UInt64?
    var repetitionCount: Int?
    var baseSeed: UInt64?
    var fuzzSettings: FuzzSettings?
    var deadlockAfterNs: UInt64?
    var timeoutNs: UInt64?
    var stopsOnViolation: Bool?
    var executorChoice: ExecutorChoice?
    var scheduleMode: ScheduleMode?
    var maxDecisionCount: Int?
    /// ``explore(preemptions:operations:seconds:pruning:)``'s values, as the
    /// plan's `explore` keys (nil: left out, the plan's default).
    var exploreKeys: [(key: String, value: String)]?
    /// ``shrink(seconds:)`` or ``shrink(_:)``: the plan's `shrink` bound in
    /// seconds, 0 for `shrink: false`; nil leaves it to the default.
    var shrinkSeconds: Int?
    /// ``hunt(seconds:)``: the plan's `hunt` in seconds, 0 for off; nil
    /// leaves it out (no hunt).
    var huntSeconds: Int?
    /// ``interpose(_:)``: the plan's `interpose`; nil leaves it out.
    var interposes: Bool?
    var expectedOutcomes: [TrialOutcome]?
    var expectedPerStrategy: [(key: String, outcomes: [TrialOutcome])] = []
    var rerunTrial: (id: String, seed: UInt64?)?
    /// Where trials run (in this process unless ``isolated(as:)`` says otherwise).
    public private(set) var isolation = Isolation.inProcess
    /// The test this runs in, for rerun commands and child processes; nil
    /// when not known (see ``test(_:)``).
    public private(set) var test: TestID?
    /// Problems found while the settings were given (a negative duration),
    /// thrown with the loader's when the test runs.
    var problems: [StressTestError.Problem] = []

    /// Where a stress test's trials run.
    public enum Isolation: Sendable, Equatable {
        /// In the test's own process: fast, and a debugger sees the trial. A
        /// trap ends the test process, a deadlock the watchdog finds ends it
        /// too (with the report printed), and trial timeouts do not apply.
        case inProcess
        /// Each trial in a child process of the test binary, which runs only
        /// this test again and takes the trial at this very call: a crash,
        /// a deadlock or a hang becomes that trial's outcome, and the test
        /// fails with its cause.
        case childProcess(TestID)
        /// Isolation was asked for where the running test could not be
        /// found; running throws this reason.
        case unavailable(String)
    }

    private init(
        program: String, isScenario: Bool, parameters: [String: ParameterValue], registry: StressRegistry,
        registration: (@Sendable (inout StressRegistry) -> Void)? = nil
    ) {
        self.program = program
        self.isScenario = isScenario
        self.parameters = parameters
        baseRegistry = registry
        registrations = registration.map { [$0] } ?? []
    }

    /// The registered workload `name` (`"counter"`, `"bank"`, a team's own).
    ///
    /// - Parameters:
    ///   - name: The workload's registered name.
    ///   - parameters: Values for the workload's parameters, by name; the rest keep their defaults.
    ///   - registry: Where the names of the workload and the strategies are looked up.
    public init(workload name: String, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: name, isScenario: false, parameters: parameters, registry: registry)
    }

    /// The workload type `W`, registered for this test (replacing a
    /// registered workload of the same name).
    ///
    /// - Parameters:
    ///   - workload: The workload type to run.
    ///   - parameters: Values for the workload's parameters, by name; the rest keep their defaults.
    ///   - registry: Where the names of the strategies are looked up; `W` is added to it.
    public init<W: Workload>(_ workload: W.Type, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: W.descriptor.name, isScenario: false, parameters: parameters, registry: registry,
                  registration: { $0.register(workload: W.self) })
    }

    /// The registered scenario `name` (one worker per role, in rounds).
    ///
    /// - Parameters:
    ///   - name: The scenario's registered name.
    ///   - parameters: Values for the scenario's parameters, by name; the rest keep their defaults.
    ///   - registry: Where the names of the scenario and the strategies are looked up.
    public init(scenario name: String, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: name, isScenario: true, parameters: parameters, registry: registry)
    }

    /// The scenario type `S`, registered for this test.
    ///
    /// - Parameters:
    ///   - scenario: The scenario type to run.
    ///   - parameters: Values for the scenario's parameters, by name; the rest keep their defaults.
    ///   - registry: Where the names of the strategies are looked up; `S` is added to it.
    public init<S: Scenario>(scenario: S.Type, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: S.descriptor.name, isScenario: true, parameters: parameters, registry: registry,
                  registration: { $0.register(scenario: S.self) })
    }

    func with(_ change: (inout StressTest) -> Void) -> StressTest {
        var copy = self
        change(&copy)
        return copy
    }

    // MARK: - What runs

    /// The experiment's name, the first part of every trial id (default: the
    /// workload's name). Two stress tests in one test binary with different
    /// names have different trial ids, which a rerun selects by.
    ///
    /// - Parameter name: The experiment's name.
    /// - Returns: This test with the name set.
    public func named(_ name: String) -> StressTest { with { $0.experimentName = name } }

    /// One parameter's value (checked against the workload's declaration when
    /// the test runs).
    ///
    /// - Parameters:
    ///   - name: The parameter's name, as the workload declares it.
    ///   - value: Its value.
    /// - Returns: This test with the value set.
    public func parameter(_ name: String, _ value: ParameterValue) -> StressTest { with { $0.parameters[name] = value } }

    /// Adds strategies by registered name, in the order trials run them;
    /// `"all"` adds every registered strategy not named yet. Without any, a
    /// test runs all strategies that can run the workload.
    ///
    /// - Parameter names: Registered strategy names, or `"all"`.
    /// - Returns: This test with the strategies added.
    public func strategies(_ names: String...) -> StressTest { strategies(names) }

    /// Adds strategies by registered name, as the variadic form does.
    ///
    /// - Parameter names: Registered strategy names, or `"all"`.
    /// - Returns: This test with the strategies added.
    public func strategies(_ names: [String]) -> StressTest {
        with { test in
            if names.isEmpty { test.problems.append(.init(setting: "strategies", "the list is empty: name at least one strategy")) }
            test.strategyNames = (test.strategyNames ?? []) + names
        }
    }

    /// Adds a team's own blocking strategy type, registered for this test.
    ///
    /// - Parameter type: The strategy type.
    /// - Returns: This test with the strategy added.
    public func strategy<S: BlockingStrategy>(_ type: S.Type) -> StressTest {
        with { test in
            test.registrations.append { $0.register(strategy: S.self) }
            test.strategyNames = (test.strategyNames ?? []) + [S.descriptor.name]
        }
    }

    /// Adds a team's own isolating (actor) strategy type, registered for this test.
    ///
    /// - Parameter type: The strategy type.
    /// - Returns: This test with the strategy added.
    public func strategy<S: IsolatingStrategy>(_ type: S.Type) -> StressTest {
        with { test in
            test.registrations.append { $0.register(strategy: S.self) }
            test.strategyNames = (test.strategyNames ?? []) + [S.descriptor.name]
        }
    }

    /// The worker counts, each a dimension of the matrix (default 1, 2, 4; a
    /// scenario always has one worker per role). For a linearizability check
    /// (``linearizable(model:make:run:operations:fileID:line:column:)``), the
    /// one count of workers in its scenarios' parallel part (default 2).
    ///
    /// - Parameter counts: The worker counts, each run as its own trials.
    /// - Returns: This test with the worker counts set.
    public func threads(_ counts: Int...) -> StressTest { threads(counts) }

    /// The worker counts, as the variadic form takes them.
    ///
    /// - Parameter counts: The worker counts, each run as its own trials.
    /// - Returns: This test with the worker counts set.
    public func threads(_ counts: [Int]) -> StressTest {
        with { test in
            if counts.isEmpty { test.problems.append(.init(setting: "threads", "the list is empty: give at least one thread count")) }
            if test.isLinearizability {
                // The parallel part's width is the scenario's parameter.
                if counts.count > 1 { test.problems.append(.init(setting: "threads", "a linearizability check takes one thread count, not \(counts.count)")) }
                if let count = counts.first { test.parameters["threads"] = .integer(count) }
                return
            }
            test.threadCounts = counts
        }
    }

    // MARK: - What must happen

    /// What every trial must do, for a test that runs a bug on purpose:
    /// `.expect(.violated)`. A trial that ends so is "caught, as expected"
    /// and counts as a success; one that passes is a failure (the checks
    /// did not see the bug). Without it, every trial must pass.
    ///
    /// - Parameter outcomes: The outcomes every trial may end with.
    /// - Returns: This test with the expectation set.
    public func expect(_ outcomes: TrialOutcome...) -> StressTest { with { $0.expectedOutcomes = outcomes } }

    /// What the trials of one strategy (at one thread count, when given) must
    /// do; it wins over ``expect(_:)`` for those trials.
    ///
    /// - Parameters:
    ///   - outcomes: The outcomes those trials may end with.
    ///   - strategy: The strategy's registered name.
    ///   - threads: The worker count, or nil for all of that strategy's trials.
    /// - Returns: This test with the expectation added.
    public func expect(_ outcomes: TrialOutcome..., for strategy: String, threads: Int? = nil) -> StressTest {
        with { $0.expectedPerStrategy.append((threads.map { "\(strategy)/t\($0)" } ?? strategy, outcomes)) }
    }

    // MARK: - Where it runs

    /// Replaces the registry names are looked up in (a team's own, with its
    /// workloads and strategies); the types handed to this builder stay
    /// registered on top of it.
    ///
    /// - Parameter registry: The registry to look names up in.
    /// - Returns: This test with the registry replaced.
    public func registry(_ registry: StressRegistry) -> StressTest { with { $0.baseRegistry = registry } }

    /// Runs every trial in this process (the default).
    ///
    /// - Returns: This test, run in this process.
    public func inProcess() -> StressTest { with { $0.isolation = .inProcess } }

    /// Runs each trial in a child process of the test binary that runs only
    /// `test` (and sets it as ``test(_:)``). `StressKitTesting` finds the
    /// running test for you: `.isolated()` under Swift Testing,
    /// `.isolated(in: self)` in an XCTest method.
    ///
    /// - Parameter test: The test that is running this stress test.
    /// - Returns: This test, run in child processes.
    public func isolated(as test: TestID) -> StressTest {
        with {
            $0.isolation = .childProcess(test)
            $0.test = test
        }
    }

    /// Marks isolation as impossible here, with the reason running throws
    /// (what `StressKitTesting` does when it finds no running test).
    ///
    /// - Parameter reason: Why no child process can run the trials, as the error says it.
    /// - Returns: This test, which throws that reason when run.
    public func isolationUnavailable(_ reason: String) -> StressTest { with { $0.isolation = .unavailable(reason) } }

    /// The test this runs in: rerun commands then select exactly it.
    ///
    /// - Parameter test: The test that is running this stress test.
    /// - Returns: This test with the test set.
    public func test(_ test: TestID) -> StressTest { with { $0.test = test } }

    /// Runs only the trial `id` (as a failure message names it), with `seed`
    /// when given: what the `STRESSBENCH_TRIAL` and `STRESSBENCH_SEED`
    /// variables of a printed rerun command do, written in code.
    ///
    /// - Parameters:
    ///   - id: The trial's id, as the failure message gives it.
    ///   - seed: The seed to run it with; nil keeps the trial's own.
    /// - Returns: This test, narrowed to that trial.
    public func rerun(trial id: String, seed: UInt64? = nil) -> StressTest { with { $0.rerunTrial = (id, seed) } }
}
