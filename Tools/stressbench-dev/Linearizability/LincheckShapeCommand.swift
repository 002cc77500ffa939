import ArgumentParser
import StressCore

/// `stressbench-dev linearizability shape`: the checker on many histories of
/// Lincheck's default scenario shape (5 operations run alone, 2 threads × 5
/// concurrent, 5 alone after), half of them with one concurrent result
/// broken, and the distribution of the time per history.
struct LincheckShapeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shape",
        abstract: "Check many histories of Lincheck's default shape; print the time per history (median, p90, p99, max).",
        discussion: "Histories are simulated (seeded): each operation takes effect at one random instant between its call and return. Every other history gets one concurrent result replaced by another value the operation can return, which usually makes it violated. Each history is checked --runs times and keeps its median; the quantiles are over histories, per model and verdict."
    )

    @Option(help: "Histories per model.")
    var histories = 2_000

    @Option(help: "Times each history is checked (its median is kept).")
    var runs = 3

    @Option(help: "Threads in the concurrent part.")
    var threads = 2

    @Option(help: "Operations per thread in the concurrent part.")
    var operationsPerThread = 5

    @Option(help: "Operations run alone before and after the concurrent part (each).")
    var sequential = 5

    @Option(help: "The seed of the simulated histories.")
    var seed: UInt64 = 1

    func validate() throws {
        guard histories > 0, runs > 0, threads > 0, operationsPerThread >= 0, sequential >= 0 else {
            throw ValidationError("--histories, --runs and --threads must be at least 1; the operation counts 0 or more")
        }
    }

    func run() throws {
        print("shape: \(sequential) alone + \(threads) threads x \(operationsPerThread) + \(sequential) alone; \(histories) histories per model, median of \(runs) runs each")
        report("map (3 keys, get/put/remove)", model: SmallMapModel(), operation: SmallMapModel.random) { _ in
            [nil] + (0..<4).map { Optional($0) }
        }
        report("queue (enqueue/dequeue)", model: QueueBenchModel(), operation: QueueBenchModel.random) { _ in
            [nil] + (0..<4).map { Optional($0) }
        }
    }

    /// Checks `histories` histories of `model` and prints the quantiles per
    /// verdict. `results` lists what an operation can return, for breaking one.
    private func report<M: SequentialModel>(
        _ name: String, model: M, operation: (inout SplitMix64) -> M.Operation,
        results: (M.Operation) -> [M.Result]
    ) {
        var generator = SplitMix64(seed: seed)
        var timesByVerdict: [LinearizabilityVerdict: [Double]] = [:]
        var all: [Double] = []
        let timing = CheckerTiming(minimumRuns: runs, maximumRuns: runs, minimumTotal: .zero)
        for index in 0..<histories {
            func operations(_ count: Int) -> [M.Operation] { (0..<count).map { _ in operation(&generator) } }
            var history = SimulatedHistory.make(
                model: model, before: operations(sequential),
                parallel: (0..<threads).map { _ in operations(operationsPerThread) }, after: operations(sequential),
                generator: &generator)
            let concurrent = history.indices.filter { history[$0].worker >= 0 }
            if index % 2 == 1, !concurrent.isEmpty {
                let broken = concurrent[generator.next(below: concurrent.count)]
                let others = results(history[broken].operation).filter { $0 != history[broken].result }
                if !others.isEmpty { history[broken].result = others[generator.next(below: others.count)] }
            }
            let measurement = timing.measure(history, model: model)
            timesByVerdict[measurement.verdict, default: []].append(measurement.median)
            all.append(measurement.median)
        }
        print("\(name):")
        for (label, times) in [("all", all)] + [LinearizabilityVerdict.linearizable, .violated, .unknown].compactMap({ verdict in
            timesByVerdict[verdict].map { (verdict.rawValue, $0) }
        }) {
            let sorted = times.sorted()
            print("  \(label.padding(toLength: 12, withPad: " ", startingAt: 0)) \(String(sorted.count).leftPadded(5)) histories  median \(milliseconds(quantile(sorted, 0.5)))  p90 \(milliseconds(quantile(sorted, 0.9)))  p99 \(milliseconds(quantile(sorted, 0.99)))  max \(milliseconds(sorted.last ?? 0))")
        }
    }
}

extension String {
    /// The string right-aligned in `width` columns.
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
