import StressCore
import StressRunner

// The builder's durations are `Duration`s; the plan it makes counts
// nanoseconds. Each setter converts here, recording a problem (not
// trapping) for a value no plan may have.
extension StressTest {
    /// Nanoseconds of a non-negative `Duration`, or nil after recording a problem.
    mutating func nanoseconds(_ duration: Duration, setting: String) -> UInt64? {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else {
            problems.append(.init(setting: setting, "\(duration) is negative: a duration must be zero or longer"))
            return nil
        }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, whole <= PlanDefaults.maxDurationNs else {
            problems.append(.init(setting: setting, "\(duration) is too long: durations are at most 168h (7 days)"))
            return nil
        }
        return whole + UInt64(attoseconds / 1_000_000_000)
    }
}
