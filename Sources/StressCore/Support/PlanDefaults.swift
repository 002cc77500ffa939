import Foundation

/// The values an experiment gets when neither it nor the plan's `defaults` set them.
package enum PlanDefaults {
    /// `threads`.
    public static let threads = [1, 2, 4]
    /// `duration`.
    public static let durationNs: UInt64 = 1_000_000_000
    /// `repetitions`.
    public static let repetitions = 1
    /// `seed`.
    public static let seed: UInt64 = 1
    /// `warmup`.
    public static let warmupNs: UInt64 = 100_000_000
    /// `deadlock_after`: how long no worker may go without completing an
    /// operation before the watchdog calls it a deadlock or a hang.
    public static let deadlockAfterNs: UInt64 = 2_000_000_000
    /// `max_decisions`: the most scheduling decisions a controlled trial
    /// makes before it ends. Enough for thousands of operations per worker
    /// (a bug a switch can show shows in the first few hundred under any
    /// policy but `off`), few enough that a trial takes tens of milliseconds
    /// and its record's schedule stays small.
    public static let maxDecisions = 20_000
    /// `shrink`: how long a failed controlled trial's schedule is shrunk
    /// (fewer preemptions, then fewer operations, then fewer events) before
    /// its record is made. Five seconds shrink the shipped bugs to their
    /// smallest schedule with room to spare on a loaded 2-core machine,
    /// and add little to a run that fails.
    public static let shrinkNs: UInt64 = 5_000_000_000
    /// The most trials a plan may expand to, with every command-line override
    /// applied (`--repetitions`): past it, validation refuses the plan and
    /// names the product that made it. A hundred thousand trials of the
    /// shortest useful window are hours of running; a matrix of millions
    /// would take gigabytes to hold before the first one ran.
    public static let maxTrials = 100_000
    /// The most workers a trial may have unless the plan says `allow_large:
    /// true` (or the command line `--allow-large`): thousands of threads on a
    /// few cores measure the scheduler more than the code, and each costs a
    /// stack and per-worker histograms.
    public static let maxThreadsWithoutOptIn = 1024
    /// How long a plan may take, by the sum of its trials' warm-ups and
    /// windows, unless it says `allow_large: true`: a day.
    public static let maxPlannedSecondsWithoutOptIn = 24.0 * 3600
    /// Past this many workers per usable core, `validate` and `run` warn.
    public static let threadsPerCoreWarning = 16
    /// Past this planned time, `validate` and `run` warn: an hour.
    public static let plannedSecondsWarning = 3600.0
    /// The longest duration any key or option accepts: 7 days (`168h`). Far
    /// beyond any useful trial, and small enough that sums of durations (the
    /// automatic timeout) never come near the range of a 64-bit count of
    /// nanoseconds.
    public static let maxDurationNs: UInt64 = 7 * 24 * 3_600 * 1_000_000_000
}
