extension StressRegistry {
    /// Every workload and strategy that ships with stressbench. This is the one
    /// place that names them; add a new one here after adding its file.
    public static var builtIn: StressRegistry {
        var r = StressRegistry()
        r.register(workload: CounterWorkload.self)
        r.register(workload: BankWorkload.self)
        r.register(workload: FaultInjectionWorkload.self)
        r.register(workload: BusyWorkWorkload.self)

        r.register(strategy: PthreadMutexStrategy.self)
        r.register(strategy: NSLockStrategy.self)
        r.register(strategy: MutexStrategy.self)
        r.register(strategy: SerialQueueStrategy.self)
        r.register(strategy: RWQueueStrategy.self)
        r.register(strategy: ActorStrategy.self)
        r.register(strategy: UnsynchronizedStrategy.self)
        return r
    }
}
