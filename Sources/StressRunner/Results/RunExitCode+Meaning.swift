import StressCore

extension RunExitCode {
    /// What the code means, in a few words (for summaries and CI logs).
    public var meaning: String {
        switch self {
        case .passed: return "passed"
        case .violations: return "invariant violated, or an expected failure not seen"
        case .usage: return "plan or usage error"
        case .trialFailures: return "crash, deadlock, hang or timeout"
        case .performanceRegression: return "performance regression"
        case .interrupted: return "interrupted by SIGINT"
        case .terminated: return "terminated by SIGTERM"
        }
    }
}
