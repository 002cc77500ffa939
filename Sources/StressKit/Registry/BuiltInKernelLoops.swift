extension StressRegistry {
    /// Runs `loop` compiled for the pair of `kernel`'s type and `strategy`'s.
    ///
    /// Swift compiles a copy of a generic function for concrete types only
    /// where both are known at one call site. The kernel's type is known here
    /// (this function is specialized for each kernel through
    /// ``StepKernel/_runMeasuredLoop(_:_:)``'s default), and each case below
    /// names a strategy's: so each case is a loop with the strategy's lock and
    /// the kernel's body inlined. Every built-in blocking strategy is listed
    /// (a test checks that none is missing); any other strategy, a custom one
    /// registered by a user, gets the loop with the strategy's calls made
    /// through its protocol, which is correct, only slower.
    ///
    /// Which strategy this is, is looked at once per worker, before its loop.
    static func runKernelLoop<K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: any BlockingStrategy, kernel: K) {
        switch strategy {
        case let s as PthreadMutexStrategy: loop.run(s, kernel: kernel)
        case let s as NSLockStrategy: loop.run(s, kernel: kernel)
        case let s as MutexStrategy: loop.run(s, kernel: kernel)
        case let s as SpinlockStrategy: loop.run(s, kernel: kernel)
        case let s as RecursiveLockStrategy: loop.run(s, kernel: kernel)
        case let s as SynchronizedStrategy: loop.run(s, kernel: kernel)
        case let s as RWLockStrategy: loop.run(s, kernel: kernel)
        case let s as AtomicStrategy: loop.run(s, kernel: kernel)
        case let s as SerialQueueStrategy: loop.run(s, kernel: kernel)
        case let s as SerialQueueFunctionStrategy: loop.run(s, kernel: kernel)
        case let s as SerialQueueAsyncStrategy: loop.run(s, kernel: kernel)
        case let s as TargetQueueStrategy: loop.run(s, kernel: kernel)
        case let s as RWQueueStrategy: loop.run(s, kernel: kernel)
        case let s as RWQueueFunctionStrategy: loop.run(s, kernel: kernel)
        case let s as RWQueueAsyncStrategy: loop.run(s, kernel: kernel)
        case let s as UnsynchronizedStrategy: loop.run(s, kernel: kernel)
        case let s as SemaphoreStrategy: loop.run(s, kernel: kernel)
        case let s as ConditionStrategy: loop.run(s, kernel: kernel)
        case let s as MainQueueStrategy: loop.run(s, kernel: kernel)
        default: runOpened(loop, strategy, kernel: kernel)
        }
    }

    /// The loop for a strategy not listed in ``runKernelLoop(_:_:kernel:)``.
    private static func runOpened<S: BlockingStrategy, K: StepKernel>(_ loop: _MeasuredLoop, _ strategy: S, kernel: K) {
        loop.run(strategy, kernel: kernel)
    }

    /// The built-in blocking strategies ``runKernelLoop(_:_:kernel:)`` has a
    /// case for (for the test that checks none is missing).
    static let kernelLoopStrategies: [any BlockingStrategy.Type] = [
        PthreadMutexStrategy.self, NSLockStrategy.self, MutexStrategy.self, SpinlockStrategy.self,
        RecursiveLockStrategy.self, SynchronizedStrategy.self, RWLockStrategy.self, AtomicStrategy.self,
        SerialQueueStrategy.self, SerialQueueFunctionStrategy.self, SerialQueueAsyncStrategy.self,
        TargetQueueStrategy.self, RWQueueStrategy.self, RWQueueFunctionStrategy.self, RWQueueAsyncStrategy.self,
        UnsynchronizedStrategy.self, SemaphoreStrategy.self, ConditionStrategy.self, MainQueueStrategy.self,
    ]
}
