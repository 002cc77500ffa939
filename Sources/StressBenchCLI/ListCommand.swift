import ArgumentParser
import Foundation
import StressKit

/// `stressbench list`.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the workloads and scenarios (with their parameters) and the strategies this binary knows."
    )

    @Flag(help: "Include hidden entries (such as the `_busywork` workload, which calibrates the gate).")
    var all = false

    func run() throws {
        let registry = CommandContext.current
        print("Workloads (plan key: workload; parameters go under 'parameters'):")
        for w in registry.workloads where all || !w.descriptor.hidden {
            let d = w.descriptor
            print("  \(d.name)\n      \(d.summary)")
            for p in d.parameters {
                print("      - \(p.name): \(p.summary) [\(p.typeDescription); default \(p.defaultValue)]")
            }
        }
        print("\nScenarios (plan key: scenario; one worker per role, run in rounds; parameters go under 'parameters'):")
        for s in registry.scenarios where all || !s.descriptor.hidden {
            let d = s.descriptor
            print("  \(d.name)\n      \(d.summary)")
            for p in d.parameters {
                print("      - \(p.name): \(p.summary) [\(p.typeDescription); default \(p.defaultValue)]")
            }
        }
        print("\nStrategies (plan key: strategies; 'all' means every one listed here):")
        let rows = registry.strategies.filter { all || !$0.descriptor.hidden }.map { s -> [String] in
            let d = s.descriptor
            return [d.name, d.execution.rawValue, d.reentrant ? "yes" : "no", d.sharedReads ? "yes" : "no", d.summary]
        }
        let header = ["name", "workers", "reentrant", "shared reads", "what it is"]
        let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
        for row in [header] + rows {
            print("  " + row.enumerated().map { i, c in i == row.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
    }
}
