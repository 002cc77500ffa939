/// The size of the scenarios a linearizability check generates, in
/// Lincheck's shape: an initial part run by one thread, a parallel part of
/// `threads` workers with `operationsPerThread` operations each, and a final
/// part run by one thread once the workers have finished.
package struct LinearizabilityShape: Sendable, Equatable {
    /// Workers in the parallel part.
    package var threads: Int
    /// Operations each worker calls in the parallel part.
    package var operationsPerThread: Int
    /// Operations run one by one before the parallel part.
    package var before: Int
    /// Operations run one by one after it.
    package var after: Int
    /// Rounds each scenario runs, each on a fresh object, before the next
    /// scenario is drawn: an interleaving that breaks it may be rare.
    package var runsPerScenario: Int

    /// The most rounds a stride of a linearizability check batches: each
    /// round is a fresh object and a check of its history, so batching more
    /// saves little, and every state of a stride is made up front.
    package static let maxStride = 8

    /// Lincheck's default: 2 × 5, with 5 before and 5 after.
    package init(threads: Int = 2, operationsPerThread: Int = 5, before: Int = 5, after: Int = 5, runsPerScenario: Int = 100) {
        self.threads = threads
        self.operationsPerThread = operationsPerThread
        self.before = before
        self.after = after
        self.runsPerScenario = runsPerScenario
    }

    /// The parameters a linearizability check takes, with their defaults.
    package static let parameterSpecs: [ParameterSpec] = [
        .integer("ops_per_thread", "operations each worker calls in a scenario's parallel part", default: 5, range: 1...64),
        .integer("ops_before", "operations run by one thread before the parallel part", default: 5, range: 0...64),
        .integer("ops_after", "operations run by one thread after the parallel part", default: 5, range: 0...64),
        .integer("runs_per_scenario", "rounds each scenario runs on a fresh object before the next is drawn", default: 100, range: 1...1_000_000),
    ]

    /// The shape `parameters` give (those of ``parameterSpecs``), for `threads` workers.
    package init(threads: Int, parameters: WorkloadParameters) throws {
        self.init(threads: threads, operationsPerThread: try parameters.integer("ops_per_thread"),
                  before: try parameters.integer("ops_before"), after: try parameters.integer("ops_after"),
                  runsPerScenario: try parameters.integer("runs_per_scenario"))
    }
}

/// One generated scenario: the operations of the initial part, of each
/// worker in the parallel part, and of the final part.
package struct ConcurrentScenario<Operation: Sendable>: Sendable {
    /// Run one by one, before the workers start.
    package var before: [Operation]
    /// `parallel[w]`: what worker `w` calls, in order.
    package var parallel: [[Operation]]
    /// Run one by one, after every worker has finished.
    package var after: [Operation]

    package init(before: [Operation], parallel: [[Operation]], after: [Operation]) {
        self.before = before
        self.parallel = parallel
        self.after = after
    }

    /// A scenario of `shape` whose operations `generate` draws, seeded: the
    /// same seed makes the same scenario.
    package init(shape: LinearizabilityShape, seed: UInt64, generate: (inout SplitMix64) -> Operation) {
        var random = SplitMix64(seed: seed)
        before = (0..<shape.before).map { _ in generate(&random) }
        parallel = (0..<shape.threads).map { _ in (0..<shape.operationsPerThread).map { _ in generate(&random) } }
        after = (0..<shape.after).map { _ in generate(&random) }
    }

    /// How many operations in all.
    package var count: Int { before.count + parallel.reduce(0) { $0 + $1.count } + after.count }

    /// Every scenario with one operation fewer, the initial part's first:
    /// the candidates a shrink tries. A worker keeps its place (and its
    /// thread) even when it has nothing left to call.
    package var withOneOperationFewer: [ConcurrentScenario] {
        var smaller: [ConcurrentScenario] = []
        for i in before.indices {
            var s = self
            s.before.remove(at: i)
            smaller.append(s)
        }
        for w in parallel.indices {
            for i in parallel[w].indices {
                var s = self
                s.parallel[w].remove(at: i)
                smaller.append(s)
            }
        }
        for i in after.indices {
            var s = self
            s.after.remove(at: i)
            smaller.append(s)
        }
        return smaller
    }
}
