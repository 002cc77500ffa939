import StressCore

extension RerunCommand {
    /// The options a controlled hunt replaces: its own schedule, policy and
    /// repetitions, and the exploration and shrink settings, since a hunt
    /// runs each seed once and shrinks what it finds.
    private static let huntReplaced: Set<String> = ["--schedule", "--fuzz", "--repetitions", "--explore"]

    /// This command's overrides run under control: without the options a
    /// hunt sets itself, then `--schedule controlled --fuzz yield` (and
    /// `extra`). Shrinking stays on, whatever the free run said.
    private func hunting(_ extra: [String]) -> RerunCommand {
        var kept: [String] = []
        var i = options.startIndex
        while i < options.endIndex {
            if Self.huntReplaced.contains(options[i]) { i += 2; continue }
            if options[i] == "--no-shrink" { i += 1; continue }
            kept.append(options[i])
            i += 1
        }
        var command = self
        command.options = kept + ["--schedule", ScheduleMode.controlled.rawValue, "--fuzz", HuntRecord.policy.rawValue] + extra
        return command
    }

    /// The command that hunts for a free-running failure of `trial` under
    /// control: its cell, controlled, `--repetitions 10` (ten seeds the plan
    /// derives), with this run's other overrides.
    package func hunt(_ trial: TrialSpec, planFile: String) -> String {
        hunting(["--repetitions", String(HuntRecord.offeredRepetitions)]).cell(CellKey(trial), planFile: planFile)
    }

    /// The command that reruns `controlled`, a hunt's controlled trial (its
    /// id and seed), under the hunt's schedule and policy.
    package func huntedTrial(_ controlled: TrialSpec, planFile: String) -> String {
        hunting([]).trial(controlled, planFile: planFile)
    }

    /// How a hunt's controlled trials print their replay command: with the
    /// hunt's policy among the overrides.
    package var huntReplay: RerunCommand { hunting([]) }
}
