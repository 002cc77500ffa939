extension StressRegistry {
    /// Every workload and strategy that ships with stressbench. This is the one
    /// place that names them; add a new one here after adding its file.
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

        // Locks, then lock-free, then dispatch queues, then actors, then the
        // control: the order `list` and `strategies: all` use.
        r.register(strategy: PthreadMutexStrategy.self)
        r.register(strategy: NSLockStrategy.self)
        r.register(strategy: MutexStrategy.self)
        r.register(strategy: SpinlockStrategy.self)
        r.register(strategy: RecursiveLockStrategy.self)
        r.register(strategy: SynchronizedStrategy.self)
        r.register(strategy: RWLockStrategy.self)
        r.register(strategy: SemaphoreStrategy.self)
        r.register(strategy: ConditionStrategy.self)
        r.register(strategy: AtomicStrategy.self)
        r.register(strategy: SerialQueueStrategy.self)
        r.register(strategy: SerialQueueFunctionStrategy.self)
        r.register(strategy: SerialQueueAsyncStrategy.self)
        r.register(strategy: TargetQueueStrategy.self)
        r.register(strategy: RWQueueStrategy.self)
        r.register(strategy: RWQueueFunctionStrategy.self)
        r.register(strategy: RWQueueAsyncStrategy.self)
        r.register(strategy: MainQueueStrategy.self)
        r.register(strategy: ActorStrategy.self)
        r.register(strategy: GlobalActorStrategy.self)
        r.register(strategy: MainActorStrategy.self)
        r.register(strategy: UnsynchronizedStrategy.self)
        return r
    }
}
