import StressCore

/// Concurrent histories made without threads, for timing the checker: each
/// simulated thread runs its operations one after another, every operation
/// takes effect on the model at one instant between its call and its return,
/// and the threads' calls, effects and returns interleave at random
/// (seeded). The effects' order is a linearization, so the history is
/// linearizable by construction; a benchmark breaks one result to get a
/// violated one.
enum SimulatedHistory {
    /// One step of a simulated thread.
    private enum Step {
        case call, effect, `return`
    }

    /// `before` run alone, then `parallel` (one operation list per thread)
    /// interleaved at random, then `after` run alone, on `model`.
    static func make<M: SequentialModel>(
        model: M, before: [M.Operation], parallel: [[M.Operation]], after: [M.Operation],
        generator: inout SplitMix64
    ) -> [HistoryOperation<M.Operation, M.Result>] {
        var state = model
        var history: [HistoryOperation<M.Operation, M.Result>] = []
        var clock: UInt64 = 0
        func runAlone(_ operations: [M.Operation]) {
            for operation in operations {
                let called = clock
                let result = state.apply(operation)
                history.append(HistoryOperation(worker: -1, operation: operation, result: result, called: called, returned: called + 1))
                clock += 2
            }
        }
        runAlone(before)
        // Per thread: the next operation and the next step of it.
        var nextOperation = [Int](repeating: 0, count: parallel.count)
        var nextStep = [Step](repeating: .call, count: parallel.count)
        var current = [Int](repeating: -1, count: parallel.count)
        var running = parallel.indices.filter { !parallel[$0].isEmpty }
        while !running.isEmpty {
            let pick = generator.next(below: running.count)
            let thread = running[pick]
            switch nextStep[thread] {
            case .call:
                current[thread] = history.count
                history.append(HistoryOperation(
                    worker: thread, operation: parallel[thread][nextOperation[thread]], result: nil,
                    called: clock, returned: .max))
                nextStep[thread] = .effect
            case .effect:
                history[current[thread]].result = state.apply(history[current[thread]].operation)
                nextStep[thread] = .return
            case .return:
                history[current[thread]].returned = clock
                nextStep[thread] = .call
                nextOperation[thread] += 1
                if nextOperation[thread] == parallel[thread].count { running.remove(at: pick) }
            }
            clock += 1
        }
        runAlone(after)
        return history
    }
}
