/// Decides whether a recorded concurrent history is linearizable with
/// respect to a ``SequentialModel``: whether some sequential order of its
/// operations, consistent with real time, gives every recorded result.
///
/// The search is Wing and Gong's with Lowe's memoization of (linearized
/// operations, model state), the algorithm Porcupine uses. A model whose
/// operations all name a part of the state (``SequentialModel/partition(of:)``)
/// is checked one part at a time, which is correct because a history is
/// linearizable exactly when each part's is (P-compositionality), and much
/// faster because the search is exponential in the concurrency of what it
/// checks together.
package enum LinearizabilityChecker {
    /// The steps every undecided part gets in the first round; each round
    /// doubles it.
    static var firstSlice: Int { 1024 }

    /// Checks `history` against `model`.
    ///
    /// Real time: an operation precedes another when it returned strictly
    /// before the other was called (`returned < called`); overlapping
    /// operations may be linearized either way. A pending operation (nil
    /// result) may be linearized anywhere after its call, with whatever
    /// result the model gives, or left out.
    ///
    /// Parts are searched in rounds, each undecided part getting twice the
    /// steps of the round before, so one violated part is found early even
    /// behind a hard linearizable one; the first part found violated is the
    /// one reported. All of this is counted in steps, not time, so the
    /// outcome is the same on every run unless the time limit intervenes.
    ///
    /// - Parameters:
    ///   - history: The operations, in any order; the outcome's indices
    ///     point into it.
    ///   - model: The model in its initial state (each part's search starts
    ///     from it when the model partitions).
    ///   - timeLimit: How long the search may run; past it the verdict is
    ///     `unknown`. The clock is read once every 1,024 search steps,
    ///     so a search shorter than that always decides.
    /// - Returns: The verdict, with a witness order when linearizable and
    ///   the closest order and the unexplained operations when violated.
    package static func check<M: SequentialModel>(
        _ history: [HistoryOperation<M.Operation, M.Result>], model: M, timeLimit: Duration
    ) -> LinearizabilityOutcome<M> {
        let deadline = ContinuousClock.now.advanced(by: timeLimit)
        let parts = parts(of: history, model: M.self)
        let models = parts.map { part in
            ModelStates(model: model, operations: part.map { history[$0].operation }, results: part.map { history[$0].result })
        }
        var searches: [LinearizabilitySearch?] = parts.map { part in
            LinearizabilitySearch(
                called: part.map { history[$0].called },
                returned: part.map { history[$0].result == nil ? nil : history[$0].returned })
        }
        var orders = [[Int]](repeating: [], count: parts.count)
        var undecided = Array(parts.indices)
        var statesExplored = 0
        var slice = firstSlice
        while !undecided.isEmpty {
            var stillUndecided: [Int] = []
            for index in undecided {
                guard var search = searches[index] else { continue }
                searches[index] = nil  // so `search` is the only reference: no copy on write
                let states = models[index]
                let progress = search.advance(steps: slice, deadline: deadline) { states.next(from: $0, by: $1) }
                let part = parts[index]
                switch progress {
                case .undecided:
                    searches[index] = search
                    stillUndecided.append(index)
                case .decided(.linearizable(let order)):
                    statesExplored += search.statesExplored
                    orders[index] = order.map { part[$0] }
                case .decided(.violated(let closest, let closestState, let unexplained)):
                    return LinearizabilityOutcome(
                        verdict: .violated, closest: closest.map { part[$0] },
                        closestState: states.states[Int(closestState)],
                        unexplained: unexplained.map { part[$0] },
                        statesExplored: statesExplored + search.statesExplored + explored(searches))
                case .timedOut:
                    return LinearizabilityOutcome(
                        verdict: .unknown, statesExplored: statesExplored + search.statesExplored + explored(searches))
                }
            }
            undecided = stillUndecided
            slice = slice.multipliedReportingOverflow(by: 2).overflow ? slice : slice * 2
        }
        return LinearizabilityOutcome(
            verdict: .linearizable, order: merged(orders, history: history), statesExplored: statesExplored)
    }

    /// The states the searches not yet decided have explored.
    private static func explored(_ searches: [LinearizabilitySearch?]) -> Int {
        searches.reduce(0) { $0 + ($1?.statesExplored ?? 0) }
    }

    /// The history's operations grouped by the part of the state they
    /// touch, each group in history order, groups in order of first
    /// appearance; one group of everything when any operation names no part
    /// (it may touch the whole state, so nothing can be checked apart).
    static func parts<M: SequentialModel>(
        of history: [HistoryOperation<M.Operation, M.Result>], model: M.Type
    ) -> [[Int]] {
        var groupOfKey: [AnyHashable: Int] = [:]
        var groups: [[Int]] = []
        for (index, operation) in history.enumerated() {
            guard let key = M.partition(of: operation.operation) else {
                return history.isEmpty ? [] : [Array(history.indices)]
            }
            if let group = groupOfKey[key] {
                groups[group].append(index)
            } else {
                groupOfKey[key] = groups.count
                groups.append([index])
            }
        }
        return groups
    }

    /// One order of the whole history from each part's order: each
    /// operation gets the earliest instant within its call and return that
    /// is no earlier than its predecessor's in its part's order (one exists,
    /// since the part's order respects real time), and the operations of all
    /// parts are sorted by it. Two operations given the same instant both
    /// span it, so they overlap and either order respects real time.
    static func merged<Operation, Result>(_ orders: [[Int]], history: [HistoryOperation<Operation, Result>]) -> [Int] {
        if orders.count == 1 { return orders[0] }
        var placed: [(instant: UInt64, part: Int, position: Int, operation: Int)] = []
        placed.reserveCapacity(orders.reduce(0) { $0 + $1.count })
        for (part, order) in orders.enumerated() {
            var instant: UInt64 = 0
            for (position, operation) in order.enumerated() {
                instant = max(instant, history[operation].called)
                placed.append((instant, part, position, operation))
            }
        }
        placed.sort { ($0.instant, $0.part, $0.position) < ($1.instant, $1.part, $1.position) }
        return placed.map(\.operation)
    }
}
