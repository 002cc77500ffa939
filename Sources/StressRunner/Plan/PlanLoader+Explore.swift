import StressCore
import Yams

extension PlanLoader {
    /// `shrink: true | false | { seconds: N }`: the shrink bound in
    /// nanoseconds (0 for off); nil, with the problem noted, for anything else.
    func parseShrink(_ value: Node, _ here: PlanKeyPath, _ r: inout PlanReader) -> UInt64? {
        if case .mapping = value {
            guard let entries = r.mapping(value, here, allowed: ["seconds"]) else { return nil }
            guard let seconds = entries.first(where: { $0.key == "seconds" }) else {
                r.fail(here, value, "shrink's mapping needs seconds (the most time shrinking may take), e.g. shrink: { seconds: 10 }")
                return nil
            }
            let range = ExplorationLimits.shrinkSeconds
            return r.integer(seconds.value, here.appending("seconds"), range: range,
                             what: "a whole number of seconds (shrink: false turns shrinking off)").map { UInt64($0) * 1_000_000_000 }
        }
        guard case .scalar(let s) = value, s.style == .plain, ["true", "false", "yes", "no", "on", "off"].contains(s.string.lowercased()) else {
            r.fail(here, value, "expected true, false or { seconds: N }, found \(r.describe(value))")
            return nil
        }
        return r.flag(value, here).map { $0 ? PlanDefaults.shrinkNs : 0 }
    }

    /// `explore: { preemptions: K, operations: M, seconds: S, pruning: true|false }`;
    /// nil, with every problem noted, when it is not that.
    func parseExplore(_ value: Node, _ here: PlanKeyPath, _ r: inout PlanReader) -> ExplorationSettings? {
        guard let entries = r.mapping(value, here, allowed: ExplorationLimits.keys) else { return nil }
        let before = r.problems.count
        guard let k = entries.first(where: { $0.key == "preemptions" }) else {
            r.fail(here, value, "explore needs preemptions (the most preemptions a schedule may have, "
                   + "\(ExplorationLimits.preemptions.lowerBound) to \(ExplorationLimits.preemptions.upperBound)), e.g. explore: { preemptions: 2 }")
            return nil
        }
        var settings = ExplorationSettings(preemptions: 0)
        settings.preemptions = r.integer(k.value, here.appending("preemptions"), range: ExplorationLimits.preemptions,
                                         what: "a number of preemptions (more than 8 never finishes)") ?? 0
        for (key, node) in entries {
            let at = here.appending(key)
            switch key {
            case "operations":
                settings.operations = r.integer(node, at, range: ExplorationLimits.operations, what: "a number of operations per worker")
                    ?? settings.operations
            case "seconds":
                settings.budgetNs = r.integer(node, at, range: ExplorationLimits.seconds, what: "a whole number of seconds")
                    .map { UInt64($0) * 1_000_000_000 } ?? settings.budgetNs
            case "pruning": settings.pruning = r.flag(node, at) ?? settings.pruning
            default: break
            }
        }
        return r.problems.count == before ? settings : nil
    }
}

extension PlanLoader {
    /// The schedule an experiment runs under: its own or the defaults'
    /// `schedule`, else `controlled` when it explores (only a controlled
    /// trial's schedules can be enumerated), else `free`. An `explore` with
    /// a `schedule: free` given is a problem, noted at the `schedule` key.
    func exploreSchedule(_ layer: Layer, defaults: Layer, _ r: inout PlanReader) -> ScheduleMode {
        let given = layer.schedule ?? defaults.schedule
        guard let at = layer.exploreAt ?? defaults.exploreAt else { return given ?? .free }
        if given == .free, let scheduleAt = layer.scheduleAt ?? defaults.scheduleAt {
            r.fail(scheduleAt.path, scheduleAt.node,
                   "explore (\(at.path), line \(at.node.mark?.line ?? 0)) enumerates a controlled trial's schedules, so it cannot run "
                   + "with schedule: free: leave schedule out (explore makes it controlled) or drop explore")
        }
        return .controlled
    }
}
