/// A list of strategy types that the compiler sees whole, as one type.
///
/// ``StressRegistry/builtInStrategies`` is written as a chain of
/// registrations, `NoStrategyTypes().register(strategy: A.self).register(strategy: B.self)`,
/// each of which wraps the list so far in a type naming one more strategy
/// (``BlockingStrategyTypes``, ``IsolatingStrategyTypes``). The chain is then
/// at once the registry's list of built-in strategies
/// (``register(into:)``, in the order written) and a list the compiler can
/// walk at compile time (``runKernelLoop(_:_:kernel:)``).
///
/// Why the list must be a type, not a value: the loop for a worker whose only
/// operation is one kernel step (``StepKernel``) is fast only as a copy
/// compiled for the pair of kernel and strategy, with the lock and the
/// kernel's body inlined, and Swift compiles such a copy only where both types
/// are known at one call site. The kernel's type is known in
/// ``StepKernel/_runMeasuredLoop(_:_:)`` (its default is compiled for each
/// kernel); a registry filled at run time cannot name the strategy's type
/// there, but this list's type can: walking it in that function compiles the
/// loop for each kernel and every blocking strategy in it. So a new strategy
/// is its file and one line in the chain, and its kernel loop follows from
/// that line; there is no second list to keep in step.
protocol StrategyTypeList: Sendable {
    init()

    /// Registers every strategy in the list, in the order the chain names them.
    static func register(into registry: inout StressRegistry)

    /// Runs `loop` compiled for `kernel`'s type and `strategy`'s, when
    /// `strategy` is an instance of one of the list's blocking strategy types.
    ///
    /// - Returns: whether it ran the loop; false when the strategy's type is
    ///   not in the list (the caller then runs the loop through the
    ///   strategy's protocol).
    static func runKernelLoop<K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy, kernel: K) -> Bool
}

extension StrategyTypeList {
    /// This list with blocking strategy `type` added at the end.
    func register<S: BlockingStrategy>(strategy type: S.Type) -> BlockingStrategyTypes<Self, S> { .init() }

    /// This list with isolating (actor) strategy `type` added at the end.
    func register<S: IsolatingStrategy>(strategy type: S.Type) -> IsolatingStrategyTypes<Self, S> { .init() }

    /// Registers every strategy in the list, in the order the chain names them.
    func register(into registry: inout StressRegistry) { Self.register(into: &registry) }

    /// Runs `loop` compiled for the pair when the strategy's type is in the
    /// list (see ``runKernelLoop(_:_:kernel:)``, the static one).
    ///
    /// - Returns: whether it ran the loop.
    func runKernelLoop<K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy, kernel: K) -> Bool {
        Self.runKernelLoop(loop, strategy, kernel: kernel)
    }
}

/// The empty list, where a chain of registrations starts.
struct NoStrategyTypes: StrategyTypeList {
    static func register(into registry: inout StressRegistry) {}

    static func runKernelLoop<K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy, kernel: K) -> Bool {
        false
    }
}

/// The list `Earlier` with blocking strategy `S` after it.
struct BlockingStrategyTypes<Earlier: StrategyTypeList, S: BlockingStrategy>: StrategyTypeList {
    static func register(into registry: inout StressRegistry) {
        Earlier.register(into: &registry)
        registry.register(strategy: S.self)
    }

    /// The earlier types are tried first, so that the first registered (the
    /// commonest, `pthread-mutex`) is found after the fewest casts. The casts
    /// are made once per worker, before its loop, never per operation.
    static func runKernelLoop<K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy, kernel: K) -> Bool {
        if Earlier.runKernelLoop(loop, strategy, kernel: kernel) { return true }
        guard let typed = strategy as? S else { return false }
        loop.worker.pointee.measuredLoop = .compiledForKernelAndStrategy
        loop.run(typed, kernel: kernel)
        return true
    }
}

/// The list `Earlier` with isolating (actor) strategy `S` after it: registered
/// like the others, and skipped by the kernel loop's walk (its workers are
/// tasks, which that loop does not run).
struct IsolatingStrategyTypes<Earlier: StrategyTypeList, S: IsolatingStrategy>: StrategyTypeList {
    static func register(into registry: inout StressRegistry) {
        Earlier.register(into: &registry)
        registry.register(strategy: S.self)
    }

    static func runKernelLoop<K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy, kernel: K) -> Bool {
        Earlier.runKernelLoop(loop, strategy, kernel: kernel)
    }
}

extension StressRegistry {
    /// Runs `loop` for `kernel` under `strategy`: compiled for the pair when
    /// the strategy's type is one ``builtInStrategies`` registers, otherwise
    /// (a team's own strategy, registered at run time) the same loop with the
    /// strategy's calls made through its protocol, which is correct, only
    /// slower. Which it is, is looked at once per worker, before its loop.
    static func runKernelLoop<K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy, kernel: K) {
        if builtInStrategies.runKernelLoop(loop, strategy, kernel: kernel) { return }
        loop.worker.pointee.measuredLoop = .kernelThroughProtocol
        runOpened(loop, strategy, kernel: kernel)
    }

    /// The loop for a strategy ``builtInStrategies`` does not name.
    private static func runOpened<S: BlockingStrategy, K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: S, kernel: K) {
        loop.run(strategy, kernel: kernel)
    }
}
