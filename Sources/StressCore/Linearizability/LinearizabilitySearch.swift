/// Wing and Gong's search for a linearization of one partition's history,
/// with Lowe's memoization: depth first, it linearizes any operation whose
/// call precedes every return still pending in the list, applies it to a
/// copy of the model, and keeps going while the result matches; it backs out
/// when the next return in real time cannot be reached. A (linearized set,
/// model state) pair it has reached before is not explored again: whatever
/// order led there, what can follow is the same.
///
/// Pending operations (no result) may be linearized anywhere after their
/// call, with whatever result the model gives, or left out: the search
/// succeeds as soon as every completed operation is linearized.
struct LinearizabilitySearch<M: SequentialModel> {
    /// What one partition's search concluded, in the partition's own
    /// operation numbers.
    enum Conclusion {
        case linearizable(order: [Int])
        case violated(closest: [Int], closestState: M, unexplained: [Int])
        case unknown
    }

    /// How many steps pass between two readings of the clock: reading it
    /// every step would cost more than the step.
    static var stepsBetweenClockReadings: Int { 1024 }

    private let operations: [M.Operation]
    private let results: [M.Result?]
    private var events: HistoryEvents
    private let completedCount: Int

    /// The states the search has reached, as (linearized set, state).
    private var reached: Set<MemoKey> = []
    /// Operations whose recorded result some order produced.
    private var explained: LinearizedSet

    /// A (linearized set, model state) pair the search reached.
    private struct MemoKey: Hashable {
        var linearized: LinearizedSet
        var state: M
    }

    /// Number of memo entries: the pairs reached.
    var statesExplored: Int { reached.count }

    /// A search over `operations` (one partition), whose results are
    /// `results` (nil: pending) and whose clock readings are `called` and
    /// `returned`.
    init(operations: [M.Operation], results: [M.Result?], called: [UInt64], returned: [UInt64]) {
        self.operations = operations
        self.results = results
        events = HistoryEvents(
            called: called,
            returned: zip(results, returned).map { result, time in result == nil ? nil : time })
        completedCount = results.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        explained = LinearizedSet(count: operations.count)
    }

    /// Runs the search from `model` until it decides or the clock passes
    /// `deadline`.
    mutating func run(from model: M, deadline: ContinuousClock.Instant) -> Conclusion {
        var state = model
        var linearized = LinearizedSet(count: operations.count)
        var linearizedCompleted = 0
        // The order so far: each operation with the state before it.
        var stackOperations: [Int] = []
        var stackStates: [M] = []
        stackOperations.reserveCapacity(operations.count)
        stackStates.reserveCapacity(operations.count)
        var closest: [Int] = []
        var closestState = model
        var blocker = -1
        var stepsUntilClock = Self.stepsBetweenClockReadings

        var entry = Int(events.next[events.head])
        while linearizedCompleted < completedCount {
            stepsUntilClock -= 1
            if stepsUntilClock == 0 {
                stepsUntilClock = Self.stepsBetweenClockReadings
                if ContinuousClock.now >= deadline { return .unknown }
            }
            if events.isCall[entry] {
                let operation = Int(events.operationOf[entry])
                var after = state
                let result = after.apply(operations[operation])
                let expected = results[operation]
                guard expected == nil || expected == result else {
                    entry = Int(events.next[entry])
                    continue
                }
                explained.insert(operation)
                linearized.insert(operation)
                if reached.insert(MemoKey(linearized: linearized, state: after)).inserted {
                    stackOperations.append(operation)
                    stackStates.append(state)
                    state = after
                    events.unlink(operation)
                    if expected != nil { linearizedCompleted += 1 }
                    entry = Int(events.next[events.head])
                } else {
                    linearized.remove(operation)
                    entry = Int(events.next[entry])
                }
            } else {
                // A completed operation's return (pending returns sort after
                // all of them, so the loop has ended before one is reached):
                // it must be linearized before anything later, and nothing
                // from here made it so. Back out the last choice.
                if stackOperations.count > closest.count || blocker < 0 {
                    closest = stackOperations
                    closestState = state
                    blocker = Int(events.operationOf[entry])
                }
                guard let operation = stackOperations.popLast(), let previous = stackStates.popLast() else {
                    return .violated(
                        closest: closest, closestState: closestState,
                        unexplained: unexplained(blocker: blocker))
                }
                state = previous
                linearized.remove(operation)
                events.relink(operation)
                if results[operation] != nil { linearizedCompleted -= 1 }
                entry = Int(events.next[Int(events.callEntry[operation])])
            }
        }
        return .linearizable(order: stackOperations)
    }

    /// The completed operations no order explained, or, when each was
    /// explained by some order, the one the closest order could not reach.
    private func unexplained(blocker: Int) -> [Int] {
        let never = (0..<operations.count).filter { results[$0] != nil && !explained.contains($0) }
        if !never.isEmpty { return never }
        return blocker >= 0 ? [blocker] : []
    }
}
