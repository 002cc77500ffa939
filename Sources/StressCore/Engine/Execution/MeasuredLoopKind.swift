/// Which of the engine's loops a thread worker ran its measured window in.
///
/// Recorded once per worker, when its loop is chosen, never per operation; the
/// tests read it (``EngineOutput/measuredLoops``) to check the choice the
/// engine really makes, such as that every built-in blocking strategy gets the
/// loop compiled for it and the kernel.
enum MeasuredLoopKind: Sendable, Equatable {
    /// The general loop: a task worker, or a trial with fuzzing, pacing,
    /// critical sections, deferred writes or extended steps.
    case general
    /// The loop compiled for the strategy's type (``_MeasuredLoop/run(_:)``,
    /// through ``BlockingStrategy/_runMeasuredLoop(_:)``; for a strategy of
    /// another module, that loop unspecialized).
    case compiledForStrategy
    /// The kernel loop compiled for the pair of kernel and strategy: the
    /// strategy's type is one ``StressRegistry/builtInStrategies`` names.
    case compiledForKernelAndStrategy
    /// The kernel loop with the strategy's calls made through its protocol: a
    /// strategy registered at run time, such as a team's own.
    case kernelThroughProtocol
}
