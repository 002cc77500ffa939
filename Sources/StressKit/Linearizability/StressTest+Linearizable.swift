import StressCore

extension StressTest {
    /// How a linearizability check draws the operations of its scenarios:
    /// every case of a `CaseIterable` type, or a generator of the test's own.
    /// Draws are seeded by the trial's seed, so a failing scenario comes back
    /// with the same seed.
    public struct Operations<Operation: Sendable>: Sendable {
        /// Draws one operation with its arguments.
        let draw: @Sendable (inout SplitMix64) -> Operation
        /// Why these operations cannot be drawn (an empty list), reported
        /// as the test's error when it runs; nil when they can.
        var problem: String?

        /// Operations made by `generator`, which draws one (with its
        /// arguments) from the random numbers it is given.
        ///
        /// ```swift
        /// .generated { random in
        ///     let key = ["a", "b"].randomElement(using: &random)!
        ///     return Bool.random(using: &random) ? .get(key) : .put(key, Int.random(in: 0..<3, using: &random))
        /// }
        /// ```
        ///
        /// - Parameter generator: Draws one operation from a seeded generator.
        /// - Returns: The operations.
        public static func generated(by generator: @escaping @Sendable (inout SplitMix64) -> Operation) -> Operations {
            Operations(draw: generator)
        }

        /// Operations drawn with equal chances from `choices`.
        ///
        /// - Parameter choices: The operations, with their arguments; at least one.
        /// - Returns: The operations.
        public static func oneOf(_ choices: [Operation]) -> Operations {
            guard !choices.isEmpty else {
                return Operations(draw: { _ in preconditionFailure("no operation to draw") },
                                  problem: "the list of operations is empty: give at least one")
            }
            return Operations { choices[$0.next(below: choices.count)] }
        }
    }

    /// Checks that a thread-safe type is linearizable: that whatever its
    /// operations return when several threads call them at once, some
    /// sequential order of the calls, consistent with real time, gives the
    /// same results on `model`, the plain single-threaded truth. No
    /// invariant to write.
    ///
    /// ```swift
    /// @Test func cacheIsLinearizable() async {
    ///     await StressTest.linearizable(
    ///         model: CacheModel(),
    ///         make: { MyCache() },
    ///         run: { cache, op in cache.perform(op) },
    ///         operations: .generated(CacheOp.self))
    ///         .threads(3).operationsPerThread(5)
    ///         .expectSuccess()
    /// }
    /// ```
    ///
    /// Each round runs one scenario on a fresh object, in Lincheck's shape:
    /// a few operations on one thread (``operationsBefore(_:)``), then
    /// ``threads(_:)-(Int...)`` workers calling ``operationsPerThread(_:)`` operations
    /// each at once, then a few more on one thread (``operationsAfter(_:)``).
    /// Every scenario runs ``runsPerScenario(_:)`` rounds before the next is
    /// drawn. A round whose history no order explains is a violation; the
    /// rounds after it shrink the scenario (one operation fewer at a time,
    /// while it still fails), and the failure shows the smallest as a table,
    /// one column per thread. Fuzzing (``fuzz(_:)-(FuzzProfile)``) and
    /// ``schedule(_:)`` `.controlled` apply as to any scenario; ``duration(_:)``
    /// or ``ops(_:)`` (rounds) bound a trial.
    ///
    /// - Parameters:
    ///   - model: The model of a fresh object.
    ///   - make: Makes a fresh object (once per round).
    ///   - run: Calls one operation on the object and returns its result.
    ///   - operations: How the scenarios' operations are drawn.
    ///   - fileID: The call's file (the compiler fills it in).
    ///   - line: The call's line (the compiler fills it in).
    ///   - column: The call's column (the compiler fills it in).
    /// - Returns: A test of the type, to configure and run.
    public static func linearizable<Model: SequentialModel, Object: Sendable>(
        model: Model, make: @escaping @Sendable () -> Object,
        run: @escaping @Sendable (Object, Model.Operation) -> Model.Result,
        operations: Operations<Model.Operation>,
        fileID: String = #fileID, line: Int = #line, column: Int = #column
    ) -> StressTest {
        let id = RaceClosures<ClosureSubject<Model, Object>.Box>.id(fileID: fileID, line: line, column: column)
        ClosureSubject.store(ClosureSubject(model: model, make: make, call: run, operations: operations), as: id)
        var test = StressTest(scenario: LinearizabilityScenario<ClosureSubject<Model, Object>>.self, parameters: ["linearizable": .integer(id)])
            .strategies("unsynchronized")
            .named("linearizable-" + raceName(fileID: fileID, line: line).dropFirst("race-".count))
        // Reported when the test runs, with any other setting at fault.
        if let problem = operations.problem { test.problems.append(.init(setting: "operations", problem)) }
        return test
    }

    /// Operations each worker calls in a linearizability check's parallel
    /// part (default 5).
    ///
    /// - Parameter count: The operations per worker, 1 to 64.
    /// - Returns: This test with the count set.
    public func operationsPerThread(_ count: Int) -> StressTest { parameter("ops_per_thread", .integer(count)) }

    /// Operations a linearizability check runs on one thread before its
    /// parallel part (default 5).
    ///
    /// - Parameter count: The operations, 0 to 64.
    /// - Returns: This test with the count set.
    public func operationsBefore(_ count: Int) -> StressTest { parameter("ops_before", .integer(count)) }

    /// Operations a linearizability check runs on one thread after its
    /// parallel part (default 5).
    ///
    /// - Parameter count: The operations, 0 to 64.
    /// - Returns: This test with the count set.
    public func operationsAfter(_ count: Int) -> StressTest { parameter("ops_after", .integer(count)) }

    /// Rounds each scenario of a linearizability check runs, each on a
    /// fresh object, before the next scenario is drawn (default 100).
    ///
    /// - Parameter count: The rounds per scenario.
    /// - Returns: This test with the count set.
    public func runsPerScenario(_ count: Int) -> StressTest { parameter("runs_per_scenario", .integer(count)) }

    /// True for a test made by ``linearizable(model:make:run:operations:fileID:line:column:)``.
    var isLinearizability: Bool { isScenario && program == "linearizable" }
}

extension StressTest.Operations where Operation: CaseIterable {
    /// Every case of `type`, with equal chances.
    ///
    /// - Parameter type: A `CaseIterable` type of operations without arguments.
    /// - Returns: The operations.
    public static func generated(_ type: Operation.Type) -> StressTest.Operations<Operation> {
        let cases = Array(type.allCases)
        return .oneOf(cases)
    }
}
