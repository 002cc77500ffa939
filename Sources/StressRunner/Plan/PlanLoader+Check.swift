import StressCore
import Yams

extension PlanLoader {
    /// Reads an experiment's `check` key: `linearizable` makes its trials
    /// check each round's history against the workload's sequential model.
    /// Refused, naming the key's line, for a scenario, for a workload with no
    /// model, for a thread count under 2 (a parallel part needs two workers)
    /// and for a lock-free strategy or one with asynchronous writes named
    /// (no critical sections to run a scenario's steps in; a write that
    /// returns before it happens); `strategies: all` leaves them out.
    /// Returns false when the experiment cannot run.
    func parseCheck(_ entries: [(key: String, value: Node)], _ path: PlanKeyPath, _ experiment: inout Experiment,
                    _ r: inout PlanReader) -> Bool {
        guard let (node, here) = entries.first(where: { $0.key == "check" }).map({ ($0.value, path.appending("check")) }) else { return true }
        guard let word = r.string(node, here) else { return false }
        guard word == "linearizable" else {
            r.fail(here, node, "expected linearizable, found '\(word.clipped)' (the one check an experiment can ask for besides its invariants)")
            return false
        }
        let withModel = registry.workloads.filter { $0.runLinearizability != nil }.map(\.descriptor.name)
        guard !experiment.isScenario, registry.workload(named: experiment.workload)?.runLinearizability != nil else {
            r.fail(here, node, "\(experiment.isScenario ? "scenario" : "workload") '\(experiment.workload)' has no sequential model, so "
                   + "check: linearizable cannot apply; the workloads with one are \(withModel.joined(separator: ", "))")
            return false
        }
        if let few = experiment.threads.first(where: { $0 < 2 }) {
            r.fail(here, node, "check: linearizable runs a parallel part of one worker per thread, so every thread count must be 2 or more, not \(few)")
            return false
        }
        // Lock-free strategies have no critical sections to run a step in;
        // asynchronous writes return before they happen, so a write's result
        // never reaches its caller.
        func unfit(_ name: String) -> String? {
            guard let descriptor = registry.strategy(named: name)?.descriptor else { return nil }
            if descriptor.lockFree { return "is lock-free (no critical sections to run the steps in)" }
            if descriptor.asynchronousWrites { return "writes asynchronously (a write returns before it happens, so its result never reaches the caller)" }
            return nil
        }
        let lockFree = experiment.strategies.filter { unfit($0) != nil }
        // Named in the experiment's own list (not brought in by `all`): an error.
        let written = entries.first { $0.key == "strategies" }.map { entry -> [String] in
            if let word = entry.value.scalar?.string { return [word] }
            return entry.value.sequence?.compactMap { $0.scalar?.string } ?? []
        } ?? []
        let named = lockFree.filter(written.contains)
        if let first = named.first {
            r.fail(here, node, "check: linearizable runs each operation's steps under the strategy and reads its result, and '\(first)' \(unfit(first) ?? ""): leave it out")
            return false
        }
        experiment.strategies.removeAll { lockFree.contains($0) }
        experiment.checksLinearizability = true
        return true
    }
}
