import StressCore

/// Whether two executables' descriptions of one plan (``BuildDescription``)
/// let `stressbench ab` compare them: the same trials of the same workloads,
/// compiled the same way, writing records this stressbench reads.
///
/// ``blocking`` lists what forbids the comparison: a paired ratio means
/// something only when both builds run the same trials of the same
/// operations, and differ only in the code inside them. ``notes`` lists what
/// is worth saying but is what a pull request may well change (the version,
/// the compiler).
package struct BuildComparison: Sendable, Equatable {
    /// Why the two builds cannot be compared; empty when they can.
    public var blocking: [String]
    /// Differences that do not stop the comparison.
    public var notes: [String]

    /// Compares the old build's description with the new one's; `resultsSchema`
    /// is the record schema this process reads.
    public init(old: BuildDescription, new: BuildDescription, resultsSchema: String = RunReport.currentSchema) {
        var blocking: [String] = []
        var notes: [String] = []
        for (side, d) in [("old", old), ("new", new)] {
            if d.schema != BuildDescription.currentSchema {
                blocking.append("the \(side) build describes itself as '\(d.schema)'; this stressbench reads '\(BuildDescription.currentSchema)'")
            }
            if d.resultsSchema != resultsSchema {
                blocking.append("the \(side) build writes records of schema '\(d.resultsSchema)'; this stressbench reads '\(resultsSchema)' (build it with the same stressbench version)")
            }
        }
        if old.buildConfiguration != new.buildConfiguration {
            blocking.append("the old build is a \(old.buildConfiguration) build and the new one a \(new.buildConfiguration) build: build both with the same configuration (-c release)")
        }
        if old.tool != new.tool { notes.append("versions differ: old \(old.tool), new \(new.tool)") }
        if old.swiftVersion != new.swiftVersion { notes.append("compilers differ: old \(old.swiftVersion), new \(new.swiftVersion)") }
        blocking += Self.trialDifferences(old.trials, new.trials)
        blocking += Self.shapeDifferences(old.workloads, new.workloads, what: "workload")
        blocking += Self.strategyDifferences(old.strategies, new.strategies)
        self.blocking = blocking
        self.notes = notes
    }

    /// True when nothing forbids the comparison.
    public var comparable: Bool { blocking.isEmpty }

    /// The first few differences between the trials the two builds make of the plan.
    static func trialDifferences(_ old: [TrialSpec], _ new: [TrialSpec]) -> [String] {
        var found: [String] = []
        if old.count != new.count {
            found.append("the old build makes \(old.count) trial(s) of the plan and the new one \(new.count)")
        }
        for (a, b) in zip(old, new) where a != b {
            found.append(a.id == b.id
                ? "trial \(a.id) differs: \(fieldsThatDiffer(a, b).joined(separator: ", "))"
                : "trial \(a.index) is \(a.id) in the old build and \(b.id) in the new one")
            if found.count >= 5 { break }
        }
        return found
    }

    /// The names of the fields in which two trials differ.
    static func fieldsThatDiffer(_ a: TrialSpec, _ b: TrialSpec) -> [String] {
        var fields: [String] = []
        func check<T: Equatable>(_ name: String, _ path: KeyPath<TrialSpec, T>) {
            if a[keyPath: path] != b[keyPath: path] { fields.append(name) }
        }
        check("workload", \.workload); check("parameters", \.parameters); check("strategy", \.strategy)
        check("threads", \.threads); check("seed", \.seed); check("warm-up", \.warmupNanoseconds)
        check("duration", \.durationNanoseconds); check("ops", \.opsPerThread); check("timeout", \.timeoutNanoseconds)
        check("deadlock_after", \.deadlockAfterNanoseconds); check("fuzz", \.fuzz); check("timing", \.timing)
        check("allocator", \.allocator); check("load", \.load); check("stop on violation", \.stopOnViolation)
        check("index", \.index); check("plan", \.plan); check("scenario", \.scenario)
        return fields.isEmpty ? ["a field this stressbench does not know"] : fields
    }

    /// How the workloads (or scenarios) of the two builds differ.
    static func shapeDifferences(_ old: [WorkloadShape], _ new: [WorkloadShape], what: String) -> [String] {
        var found: [String] = []
        let newByName = Dictionary(new.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for a in old {
            guard let b = newByName[a.name] else { continue }  // the trials already differ
            if a.kind != b.kind {
                found.append("\(a.name) is a \(a.kind) in the old build and a \(b.kind) in the new one")
                continue
            }
            if a.parameters != b.parameters {
                found.append("\(a.kind) \(a.name) has other parameters: old [\(a.parameters.joined(separator: "; "))], new [\(b.parameters.joined(separator: "; "))]")
            }
            for (fa, fb) in zip(a.forms, b.forms) where fa != fb {
                let ops = { (f: WorkloadShape.Form) in f.operations.joined(separator: " | ") }
                if fa.operations != fb.operations {
                    found.append("\(a.kind) \(a.name) (\(fa.parameters)) has other operations: old \(ops(fa)); new \(ops(fb))")
                } else {
                    found.append("\(a.kind) \(a.name) (\(fa.parameters)) has a lock-free form in one build only")
                }
            }
        }
        return found
    }

    /// How the strategies of the two builds differ.
    static func strategyDifferences(_ old: [StrategyShape], _ new: [StrategyShape]) -> [String] {
        let newByName = Dictionary(new.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        return old.compactMap { a in
            guard let b = newByName[a.name], a.traits != b.traits else { return nil }
            let onlyOld = a.traits.filter { !b.traits.contains($0) }, onlyNew = b.traits.filter { !a.traits.contains($0) }
            return "strategy \(a.name) is described differently: old \(onlyOld.joined(separator: ", ")); new \(onlyNew.joined(separator: ", "))"
        }
    }
}
