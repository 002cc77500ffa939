import ArgumentParser

/// `stressbench-dev linearizability`: how fast the linearizability checker
/// decides, on the histories the scripts name: Lincheck's default scenario
/// shape, a long partitioned key-value history, and Porcupine's own test
/// logs (scripts/linearizability-checker.sh, scripts/porcupine-compare.sh).
struct LinearizabilityBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "linearizability",
        abstract: "Time the linearizability checker (for scripts/linearizability-checker.sh and scripts/porcupine-compare.sh).",
        subcommands: [LincheckShapeCommand.self, LongKeyValueCommand.self, PorcupineLogsCommand.self]
    )
}
