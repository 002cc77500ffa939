import StressCore
import Yams

extension PlanLoader {
    /// `hunt: 10s | off`: how long to hunt under control for each failure of
    /// a free-running trial, in nanoseconds (0 for `off`, `false`, `no` or a
    /// zero duration); nil, with the problem noted, for anything else.
    func parseHunt(_ value: Node, _ here: PlanKeyPath, _ r: inout PlanReader) -> UInt64? {
        let longest = UInt64(HuntRecord.longestSeconds) * 1_000_000_000
        let expected = "expected a duration up to \(HuntRecord.longestSeconds / 3_600)h, such as 10s (the time to hunt for each "
            + "free-running failure under control), or off"
        guard case .scalar(let s) = value else {
            r.fail(here, value, "\(expected), found \(r.describe(value))")
            return nil
        }
        if s.style == .plain, ["off", "false", "no"].contains(s.string.lowercased()) { return 0 }
        guard case .success(let ns) = Quantities.boundedNanoseconds(from: s.string), ns <= longest else {
            r.fail(here, value, "\(expected), found \(r.describe(value))")
            return nil
        }
        return ns
    }
}
