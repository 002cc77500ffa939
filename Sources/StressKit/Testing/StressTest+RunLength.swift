import StressCore
import StressRunner

/// How long a stress test runs, how often, with which seed and fuzzing.
extension StressTest {
    /// A measured window of this length per trial (replaces ``ops(_:)``).
    ///
    /// - Parameter window: The measured window of each trial.
    /// - Returns: This test with the window set.
    public func duration(_ window: Duration) -> StressTest {
        with { test in
            if let ns = test.nanoseconds(window, setting: "duration") { test.stop = .duration(nanoseconds: ns) }
        }
    }

    /// This many operations per worker per trial (replaces ``duration(_:)``).
    ///
    /// - Parameter perThread: The operations each worker runs in the measured window.
    /// - Returns: This test with the count set.
    public func ops(_ perThread: Int) -> StressTest { with { $0.stop = .operations(perThread: perThread) } }

    /// The untimed warm-up before each trial's window (default 100 ms).
    ///
    /// - Parameter warmup: The warm-up of each trial.
    /// - Returns: This test with the warm-up set.
    public func warmup(_ warmup: Duration) -> StressTest {
        with { test in test.warmupNs = test.nanoseconds(warmup, setting: "warmup") ?? test.warmupNs }
    }

    /// Trials per strategy and thread count, each with its own seed (default 1).
    ///
    /// - Parameter count: The repetitions of every cell of the matrix.
    /// - Returns: This test with the repetitions set.
    public func repetitions(_ count: Int) -> StressTest { with { $0.repetitionCount = count } }

    /// The base seed every trial's seed derives from (default 1).
    ///
    /// - Parameter seed: The base seed.
    /// - Returns: This test with the seed set.
    public func seed(_ seed: UInt64) -> StressTest { with { $0.baseSeed = seed } }

    /// Thread fuzzing by profile (`.yield`, `.chaos`, `.pct`, …).
    ///
    /// - Parameter profile: The fuzzing profile, with its preset settings.
    /// - Returns: This test with fuzzing set.
    public func fuzz(_ profile: FuzzProfile) -> StressTest { with { $0.fuzzSettings = FuzzSettings(profile) } }

    /// Thread fuzzing with every setting given.
    ///
    /// - Parameter settings: The fuzzing settings, a profile's preset tuned.
    /// - Returns: This test with fuzzing set.
    public func fuzz(_ settings: FuzzSettings) -> StressTest { with { $0.fuzzSettings = settings } }

    /// How long every worker may go without completing an operation before
    /// the watchdog calls it a deadlock or a hang (default 2 s).
    ///
    /// - Parameter limit: The longest time without progress that is not a stall.
    /// - Returns: This test with the limit set.
    public func deadlockAfter(_ limit: Duration) -> StressTest {
        with { test in test.deadlockAfterNs = test.nanoseconds(limit, setting: "deadlockAfter") ?? test.deadlockAfterNs }
    }

    /// How long an isolated trial may take before it is killed (default:
    /// warm-up + 2 × window + 10 s, or warm-up + 2 min for an ops count).
    ///
    /// - Parameter limit: The longest an isolated trial may take.
    /// - Returns: This test with the timeout set.
    public func timeout(_ limit: Duration) -> StressTest {
        with { test in test.timeoutNs = test.nanoseconds(limit, setting: "timeout") ?? test.timeoutNs }
    }

    /// End each trial at its first violation: a bug that shows early ends its
    /// trial then, so a long window costs time only where no bug shows.
    ///
    /// - Parameter stop: Whether a trial ends at its first violation.
    /// - Returns: This test with the choice set.
    public func stopOnViolation(_ stop: Bool = true) -> StressTest { with { $0.stopsOnViolation = stop } }

    /// Where worker tasks run their jobs (``ExecutorChoice``).
    ///
    /// - Parameter choice: The executor for worker tasks.
    /// - Returns: This test with the executor set.
    public func executor(_ choice: ExecutorChoice) -> StressTest { with { $0.executorChoice = choice } }
}
