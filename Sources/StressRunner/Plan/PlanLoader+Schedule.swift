import StressCore
import Yams

extension PlanLoader {
    /// `schedule: free | controlled`; nil (with the problem noted) for
    /// anything else.
    func parseSchedule(_ value: Node, _ here: PlanKeyPath, _ r: inout PlanReader) -> ScheduleMode? {
        guard let word = r.string(value, here) else { return nil }
        guard let mode = ScheduleMode(rawValue: word) else {
            r.fail(here, value, "expected free or controlled, found '\(word.clipped)'")
            return nil
        }
        return mode
    }
}
