import StressCore

/// Why a run ended before every selected trial had run. The trials it never
/// started are still in the report, as `skipped` records that say why, so a
/// reader sees what is missing.
package struct RunStop: Sendable, Codable, Equatable {
    /// What stopped the run.
    public enum Reason: String, Sendable, Codable {
        /// SIGINT or SIGTERM to the run (Ctrl-C); the exit code is 128 + the signal.
        case signal
        /// `--fail-fast`: a trial did not pass; the exit code is that trial's.
        case failFast = "fail-fast"
    }

    /// What stopped the run.
    public var reason: Reason
    /// `SIGINT` or `SIGTERM`, for ``Reason/signal``.
    public var signal: String?
    /// The trial that failed (fail-fast), or the one running when the signal
    /// came (nil when it came between trials).
    public var trial: String?

    /// A stop.
    public init(reason: Reason, signal: String? = nil, trial: String? = nil) {
        self.reason = reason
        self.signal = signal
        self.trial = trial
    }

    /// `interrupted by SIGINT`, `stopped at the first failure (--fail-fast): ID`.
    public var summary: String {
        switch reason {
        case .signal: return "interrupted by \(signal ?? "a signal")"
        case .failFast: return "stopped at the first failure (--fail-fast)" + (trial.map { ": \($0)" } ?? "")
        }
    }

    /// The failure message of every trial the stop kept from starting:
    /// `not run: the run was interrupted by SIGINT`.
    var notRunMessage: String { "not run: the run was \(summary)" }
}
