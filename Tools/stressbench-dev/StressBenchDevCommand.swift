import ArgumentParser
import StressKit

/// `stressbench-dev`: the development tool's root command. Its commands time
/// hand-written loops beside the harness, for the scripts in scripts/ and
/// for work on the hot loop; they are not part of what ships.
struct StressBenchDevCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stressbench-dev",
        abstract: "The harness's own benchmarks: hand-written loops timed beside stressbench (a development tool; not shipped).",
        discussion: """
        Build it with `swift build -c release --product stressbench-dev` (or `swift build -c release`, \
        which builds every target); the figures of a debug build mean little. \
        scripts/bench-lock-overhead.sh runs `baseline` and `overhead`, scripts/bench-primitives.sh \
        runs `primitives`, scripts/bench-builds.py runs `baseline`, \
        scripts/linearizability-checker.sh and scripts/porcupine-compare.sh run `linearizability`. The first three also answer to \
        the name each had as a hidden `stressbench` command (`_baseline`, `_overhead`, `_primitives`), \
        so one script can time builds from before and after the move.
        """,
        version: "stressbench-dev \(StressKitVersion.current)",
        subcommands: [BaselineCommand.self, OverheadCommand.self, PrimitivesBenchCommand.self, LinearizabilityBenchCommand.self]
    )
}
