import Yams
import StressCore

extension PlanLoader {
    /// Validates a plan given as a YAML tree rather than text: what
    /// ``StressTest`` builds from its settings, so a plan made in Swift goes
    /// through every check a plan file does, and becomes the same ``Plan``.
    package func load(tree root: Node, file: String) throws(PlanError) -> Plan {
        var reader = PlanReader(file: file)
        let plan = parsePlan(root, file: file, reader: &reader)
        if !reader.problems.isEmpty { throw PlanError(problems: reader.problems) }
        return plan!
    }
}
