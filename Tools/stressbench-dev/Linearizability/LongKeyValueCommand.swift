import ArgumentParser
import StressCore

/// `stressbench-dev linearizability kv`: one long history of a key-value
/// store that partitions by key (10,000 operations on 100 keys by default),
/// checked whole, linearizable and with one get broken.
struct LongKeyValueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Check one long partitioned key-value history (linearizable, then with one get broken); print the times.",
        discussion: "The history is simulated (seeded): --threads threads each run their share of --operations gets, puts and appends on --keys keys, each taking effect at a random instant between its call and return."
    )

    @Option(help: "Operations in the history.")
    var operations = 10_000

    @Option(help: "Keys (the model's partitions).")
    var keys = 100

    @Option(help: "Concurrent threads.")
    var threads = 8

    @Option(help: "The seed of the simulated history.")
    var seed: UInt64 = 1

    @Option(help: "Minimum checks of each history (more while under a second in total).")
    var runs = 5

    func validate() throws {
        guard operations > 0, keys > 0, threads > 0, runs > 0 else {
            throw ValidationError("--operations, --keys, --threads and --runs must be at least 1")
        }
    }

    func run() throws {
        var generator = SplitMix64(seed: seed)
        var serial = 0
        let perThread = (0..<threads).map { thread in
            (0..<(operations / threads + (thread < operations % threads ? 1 : 0))).map { _ -> AppendKeyValueModel.Operation in
                let key = "k\(generator.next(below: keys))"
                serial += 1
                switch generator.next(below: 3) {
                case 0: return .get(key)
                case 1: return .put(key, "v\(serial) ")
                default: return .append(key, "a\(serial) ")
                }
            }
        }
        var history = SimulatedHistory.make(
            model: AppendKeyValueModel(), before: [], parallel: perThread, after: [], generator: &generator)
        let timing = CheckerTiming(minimumRuns: runs, minimumTotal: .seconds(1))
        print("kv: \(history.count) operations, \(keys) keys, \(threads) threads")
        print("  as recorded:   " + line(timing.measure(history, model: AppendKeyValueModel())))
        // Break the last get: it now reads a value nobody wrote.
        if let last = history.lastIndex(where: { if case .get = $0.operation { true } else { false } }) {
            history[last].result = .value("never written")
            print("  one get wrong: " + line(timing.measure(history, model: AppendKeyValueModel())))
        }
    }

    private func line(_ measurement: CheckerTiming.Measurement) -> String {
        "\(measurement.verdict.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) states \(measurement.statesExplored)  median \(milliseconds(measurement.median))  min \(milliseconds(measurement.seconds.first ?? 0))  max \(milliseconds(measurement.seconds.last ?? 0))  (\(measurement.seconds.count) runs)"
    }
}
