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
/// has when it is left out (``PlanDefaults``): all strategies, threads 1, 2
/// and 4, a 1 s window after a 100 ms warm-up, seed 1, no fuzzing.
///
/// Underneath it is a plan: the settings become the same ``Plan`` a plan file
/// becomes, checked by the same ``PlanLoader`` (an unknown strategy lists
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
    public init(workload name: String, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: name, isScenario: false, parameters: parameters, registry: registry)
    }

    /// The workload type `W`, registered for this test (replacing a
    /// registered workload of the same name).
    public init<W: Workload>(_ workload: W.Type, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: W.descriptor.name, isScenario: false, parameters: parameters, registry: registry,
                  registration: { $0.register(workload: W.self) })
    }

    /// The registered scenario `name` (one worker per role, in rounds).
    public init(scenario name: String, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: name, isScenario: true, parameters: parameters, registry: registry)
    }

    /// The scenario type `S`, registered for this test.
    public init<S: Scenario>(scenario: S.Type, parameters: [String: ParameterValue] = [:], registry: StressRegistry = .builtIn) {
        self.init(program: S.descriptor.name, isScenario: true, parameters: parameters, registry: registry,
                  registration: { $0.register(scenario: S.self) })
    }

    private func with(_ change: (inout StressTest) -> Void) -> StressTest {
        var copy = self
        change(&copy)
        return copy
    }

    // MARK: - What runs

    /// The experiment's name, the first part of every trial id (default: the
    /// workload's name). Two stress tests in one test binary with different
    /// names have different trial ids, which a rerun selects by.
    public func named(_ name: String) -> StressTest { with { $0.experimentName = name } }

    /// One parameter's value (checked against the workload's declaration when
    /// the test runs).
    public func parameter(_ name: String, _ value: ParameterValue) -> StressTest { with { $0.parameters[name] = value } }

    /// Adds strategies by registered name, in the order trials run them;
    /// `"all"` adds every registered strategy not named yet. Without any, a
    /// test runs all strategies that can run the workload.
    public func strategies(_ names: String...) -> StressTest { strategies(names) }

    /// Adds strategies by registered name, as the variadic form does.
    public func strategies(_ names: [String]) -> StressTest {
        with { test in
            if names.isEmpty { test.problems.append(.init(setting: "strategies", "the list is empty: name at least one strategy")) }
            test.strategyNames = (test.strategyNames ?? []) + names
        }
    }

    /// Adds a team's own blocking strategy type, registered for this test.
    public func strategy<S: BlockingStrategy>(_ type: S.Type) -> StressTest {
        with { test in
            test.registrations.append { $0.register(strategy: S.self) }
            test.strategyNames = (test.strategyNames ?? []) + [S.descriptor.name]
        }
    }

    /// Adds a team's own isolating (actor) strategy type, registered for this test.
    public func strategy<S: IsolatingStrategy>(_ type: S.Type) -> StressTest {
        with { test in
            test.registrations.append { $0.register(strategy: S.self) }
            test.strategyNames = (test.strategyNames ?? []) + [S.descriptor.name]
        }
    }

    /// The worker counts, each a dimension of the matrix (default 1, 2, 4; a
    /// scenario always has one worker per role).
    public func threads(_ counts: Int...) -> StressTest { threads(counts) }

    /// The worker counts, as the variadic form takes them.
    public func threads(_ counts: [Int]) -> StressTest {
        with { test in
            if counts.isEmpty { test.problems.append(.init(setting: "threads", "the list is empty: give at least one thread count")) }
            test.threadCounts = counts
        }
    }

    // MARK: - How long

    /// A measured window of this length per trial (replaces ``ops(_:)``).
    public func duration(_ window: Duration) -> StressTest {
        with { test in
            if let ns = test.nanoseconds(window, setting: "duration") { test.stop = .duration(nanoseconds: ns) }
        }
    }

    /// This many operations per worker per trial (replaces ``duration(_:)``).
    public func ops(_ perThread: Int) -> StressTest { with { $0.stop = .operations(perThread: perThread) } }

    /// The untimed warm-up before each trial's window (default 100 ms).
    public func warmup(_ warmup: Duration) -> StressTest {
        with { test in test.warmupNs = test.nanoseconds(warmup, setting: "warmup") ?? test.warmupNs }
    }

    /// Trials per strategy and thread count, each with its own seed (default 1).
    public func repetitions(_ count: Int) -> StressTest { with { $0.repetitionCount = count } }

    /// The base seed every trial's seed derives from (default 1).
    public func seed(_ seed: UInt64) -> StressTest { with { $0.baseSeed = seed } }

    /// Thread fuzzing by profile (`.yield`, `.chaos`, `.pct`, …).
    public func fuzz(_ profile: FuzzProfile) -> StressTest { with { $0.fuzzSettings = FuzzSettings(profile) } }

    /// Thread fuzzing with every setting given.
    public func fuzz(_ settings: FuzzSettings) -> StressTest { with { $0.fuzzSettings = settings } }

    /// How long every worker may go without completing an operation before
    /// the watchdog calls it a deadlock or a hang (default 2 s).
    public func deadlockAfter(_ limit: Duration) -> StressTest {
        with { test in test.deadlockAfterNs = test.nanoseconds(limit, setting: "deadlockAfter") ?? test.deadlockAfterNs }
    }

    /// How long an isolated trial may take before it is killed (default:
    /// warm-up + 2 × window + 10 s, or warm-up + 2 min for an ops count).
    public func timeout(_ limit: Duration) -> StressTest {
        with { test in test.timeoutNs = test.nanoseconds(limit, setting: "timeout") ?? test.timeoutNs }
    }

    /// End each trial at its first violation: a bug that shows early ends its
    /// trial then, so a long window costs time only where no bug shows.
    public func stopOnViolation(_ stop: Bool = true) -> StressTest { with { $0.stopsOnViolation = stop } }

    /// Where worker tasks run their jobs (``ExecutorChoice``).
    public func executor(_ choice: ExecutorChoice) -> StressTest { with { $0.executorChoice = choice } }

    // MARK: - What must happen

    /// What every trial must do, for a test that runs a bug on purpose:
    /// `.expect(.violated)`. A trial that ends so is "caught, as expected"
    /// and counts as a success; one that passes is a failure (the checks
    /// did not see the bug). Without it, every trial must pass.
    public func expect(_ outcomes: TrialOutcome...) -> StressTest { with { $0.expectedOutcomes = outcomes } }

    /// What the trials of one strategy (at one thread count, when given) must
    /// do; it wins over ``expect(_:)`` for those trials.
    public func expect(_ outcomes: TrialOutcome..., for strategy: String, threads: Int? = nil) -> StressTest {
        with { $0.expectedPerStrategy.append((threads.map { "\(strategy)/t\($0)" } ?? strategy, outcomes)) }
    }

    // MARK: - Where it runs

    /// Replaces the registry names are looked up in (a team's own, with its
    /// workloads and strategies); the types handed to this builder stay
    /// registered on top of it.
    public func registry(_ registry: StressRegistry) -> StressTest { with { $0.baseRegistry = registry } }

    /// Runs every trial in this process (the default).
    public func inProcess() -> StressTest { with { $0.isolation = .inProcess } }

    /// Runs each trial in a child process of the test binary that runs only
    /// `test` (and sets it as ``test(_:)``). `StressKitTesting` finds the
    /// running test for you: `.isolated()` under Swift Testing,
    /// `.isolated(in: self)` in an XCTest method.
    public func isolated(as test: TestID) -> StressTest {
        with {
            $0.isolation = .childProcess(test)
            $0.test = test
        }
    }

    /// Marks isolation as impossible here, with the reason running throws
    /// (what `StressKitTesting` does when it finds no running test).
    public func isolationUnavailable(_ reason: String) -> StressTest { with { $0.isolation = .unavailable(reason) } }

    /// The test this runs in: rerun commands then select exactly it.
    public func test(_ test: TestID) -> StressTest { with { $0.test = test } }

    /// Runs only the trial `id` (as a failure message names it), with `seed`
    /// when given: what the `STRESSBENCH_TRIAL` and `STRESSBENCH_SEED`
    /// variables of a printed rerun command do, written in code.
    public func rerun(trial id: String, seed: UInt64? = nil) -> StressTest { with { $0.rerunTrial = (id, seed) } }

    /// Nanoseconds of a non-negative `Duration`, or nil after recording a problem.
    private mutating func nanoseconds(_ duration: Duration, setting: String) -> UInt64? {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else {
            problems.append(.init(setting: setting, "\(duration) is negative: a duration must be zero or longer"))
            return nil
        }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, whole <= PlanDefaults.maxDurationNs else {
            problems.append(.init(setting: setting, "\(duration) is too long: durations are at most 168h (7 days)"))
            return nil
        }
        return whole + UInt64(attoseconds / 1_000_000_000)
    }
}
