extension StressRegistry {
    /// Every workload, scenario, strategy and scheduling policy that ships
    /// with stressbench. This is the one place that names them; add a new
    /// one here after adding its file.
    public static var builtIn: StressRegistry {
        var r = StressRegistry()
        r.register(workload: CounterWorkload.self)
        r.register(workload: BankWorkload.self)
        r.register(workload: CacheWorkload.self)
        r.register(workload: LifecycleWorkload.self)
        r.register(workload: QueueWorkload.self)
        r.register(workload: LazyInitWorkload.self)
        r.register(workload: BusyWorkWorkload.self)

        r.register(scenario: StoreBufferingScenario.self)
        r.register(scenario: MessagePassingScenario.self)
        r.register(scenario: LoadBufferingScenario.self)
        r.register(scenario: DekkerScenario.self)
        r.register(scenario: EmptyScenario.self)
        r.register(scenario: OperationStartCancelScenario.self)
        r.register(scenario: LazyInitRaceScenario.self)
        r.register(scenario: NestedTransactionOnceScenario.self)

        // The strategies: the list below.
        builtInStrategies.register(into: &r)

        for policy in builtInPolicies { r.register(policy: policy) }
        return r
    }

    /// Every scheduling policy that ships, in the order `--help` lists
    /// them. Their names are what plans' `fuzz` key takes.
    package static let builtInPolicies: [any SchedulingPolicy] = [
        OffPolicy(),
        LightPolicy(),
        YieldPolicy(),
        ChaosPolicy(),
        PCTPolicy(),
        PortfolioPolicy(),
    ]

    /// Every strategy that ships, one registration a line. Locks, then
    /// lock-free, then dispatch queues, then actors, then the control: the
    /// order `list` and `strategies: all` use. The chain is a type
    /// (``StrategyTypeList``), so that the engine's kernel loop is compiled
    /// for each blocking strategy named here: a new strategy is its file and
    /// its line here, nothing else.
    static let builtInStrategies = NoStrategyTypes()
        .register(strategy: PthreadMutexStrategy.self)
        .register(strategy: NSLockStrategy.self)
        .register(strategy: MutexStrategy.self)
        .register(strategy: SpinlockStrategy.self)
        .register(strategy: RecursiveLockStrategy.self)
        .register(strategy: SynchronizedStrategy.self)
        .register(strategy: RWLockStrategy.self)
        .register(strategy: SemaphoreStrategy.self)
        .register(strategy: ConditionStrategy.self)
        .register(strategy: AtomicStrategy.self)
        .register(strategy: SerialQueueStrategy.self)
        .register(strategy: SerialQueueFunctionStrategy.self)
        .register(strategy: SerialQueueAsyncStrategy.self)
        .register(strategy: TargetQueueStrategy.self)
        .register(strategy: RWQueueStrategy.self)
        .register(strategy: RWQueueFunctionStrategy.self)
        .register(strategy: RWQueueAsyncStrategy.self)
        .register(strategy: MainQueueStrategy.self)
        .register(strategy: ActorStrategy.self)
        .register(strategy: GlobalActorStrategy.self)
        .register(strategy: MainActorStrategy.self)
        .register(strategy: UnsynchronizedStrategy.self)
}
