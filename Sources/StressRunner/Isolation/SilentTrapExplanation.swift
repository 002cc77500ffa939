import Foundation
import StressCore

/// The likely cause of a trap that printed nothing, read from where the crash
/// handler says each worker was.
///
/// libdispatch traps a `dispatch_sync` onto a queue the calling thread is
/// already running on (directly, or through the queue's target). On Apple
/// platforms the crash report says "dispatch_sync called on queue already owned
/// by current thread"; on Linux it is a bare `ud2`, so the trial dies of
/// `SIGILL` with no message at all. When the strategy is a queue, the runtime
/// printed no `Fatal error`, and a worker was entering a nested section from
/// inside another, that is what happened, and the record says so.
enum SilentTrapExplanation {
    /// What the crash handler prints for a worker entering a nested section.
    private static let nestedPhase = WorkerPhase.descriptions[Int(WorkerPhase.acquiringInner.rawValue)]

    /// One worker line of the crash handler's report, parsed.
    struct NestedEntry: Equatable {
        let worker: Int
        /// `operation/step`, when the handler named it.
        let site: String?
        let outer: Int
        let inner: Int
    }

    /// The explanation for a crashed record, or nil when it does not apply.
    static func explain(signal: String?, outputTail: [String], strategy: StrategyDescriptor?) -> String? {
        guard signal == "SIGILL" || signal == "SIGTRAP", strategy?.primitive == .queue,
              !outputTail.contains(where: { $0.contains("Fatal error") }),
              let entry = outputTail.lazy.compactMap(nestedEntry).first
        else { return nil }
        let site = entry.site.map { " (\($0))" } ?? ""
        let entering = entry.inner == entry.outer
            ? "entering resource \(entry.outer) again from inside it"
            : "entering resource \(entry.inner) from inside resource \(entry.outer)"
        return "libdispatch traps a dispatch_sync onto a queue the thread is already running on, directly or through "
            + "its target queue ('dispatch_sync called on queue already owned by current thread'), and on Linux prints "
            + "nothing: worker \(entry.worker)\(site) was \(entering)"
    }

    /// Parses `stressbench:   worker 1: transfer/move, holding and waiting to
    /// enter a nested section of resource 0 (inner: resource 0)`.
    static func nestedEntry(_ line: String) -> NestedEntry? {
        guard let workerStart = line.range(of: "worker "),
              let phase = line.range(of: nestedPhase + " resource ", range: workerStart.upperBound..<line.endIndex),
              let innerMark = line.range(of: "(inner: resource ", range: phase.upperBound..<line.endIndex)
        else { return nil }
        let afterWorker = line[workerStart.upperBound...]
        guard let worker = Int(afterWorker.prefix { $0.isNumber }),
              let outer = Int(line[phase.upperBound...].prefix { $0.isNumber }),
              let inner = Int(line[innerMark.upperBound...].prefix { $0.isNumber })
        else { return nil }
        // "1: transfer/move, " before the phase words; absent when the site was unknown.
        let between = line[afterWorker.startIndex..<phase.lowerBound]
        let site = between.split(separator: ":", maxSplits: 1).dropFirst().first?
            .trimmingCharacters(in: CharacterSet(charactersIn: ", "))
        return NestedEntry(worker: worker, site: site?.isEmpty == false ? site : nil, outer: outer, inner: inner)
    }
}

extension TrialResult {
    /// This record with the likely cause of a silent libdispatch trap added to
    /// its failure message (see ``SilentTrapExplanation``); unchanged otherwise.
    func explainingSilentTrap(strategy: StrategyDescriptor?) -> TrialResult {
        guard outcome == .crashed, var failure,
              let why = SilentTrapExplanation.explain(signal: failure.signal, outputTail: failure.outputTail, strategy: strategy)
        else { return self }
        failure.message += "; likely cause: " + why
        var result = self
        result.failure = failure
        return result
    }
}
