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
///
/// The search runs in slices (`advance(steps:deadline:)`), so the checker
/// can share its time among partitions and stop at the first violation
/// wherever it is, not after the hardest linearizable partition before it.
struct LinearizabilitySearch<M: SequentialModel> {
    /// What one partition's search concluded, in the partition's own
    /// operation numbers.
    enum Conclusion {
        case linearizable(order: [Int])
        case violated(closest: [Int], closestState: M, unexplained: [Int])
    }

    /// Where a slice of the search left it.
    enum Progress {
        case decided(Conclusion)
        /// The slice's steps are spent; `advance` again to go on.
        case undecided
        /// The clock passed the deadline.
        case timedOut
    }

    /// How many steps pass between two readings of the clock: reading it
    /// every step would cost more than the step.
    static var stepsBetweenClockReadings: Int { 1024 }

    private let operations: [M.Operation]
    private let results: [M.Result?]
    private var events: HistoryEvents
    private let completedCount: Int
    private var memo: MemoTable<M>
    /// Operations whose recorded result some order produced.
    private var explained: LinearizedSet

    // Where the search stands, kept between slices.
    private var state: M
    private var linearized: LinearizedSet
    private var linearizedCompleted = 0
    /// The order so far, and the state before each of its operations.
    private var stackOperations: [Int] = []
    private var stackStates: [M] = []
    /// The next entry to try.
    private var entry: Int
    /// The longest order backed out of, the state after it, and the
    /// operation whose return stopped it.
    private var closest: [Int] = []
    private var closestState: M
    private var blocker = -1

    /// Number of memo entries: the (set, state) pairs reached.
    var statesExplored: Int { memo.count }

    /// A search from `model` over `operations` (one partition), whose
    /// results are `results` (nil: pending) and whose clock readings are
    /// `called` and `returned`.
    init(model: M, operations: [M.Operation], results: [M.Result?], called: [UInt64], returned: [UInt64]) {
        self.operations = operations
        self.results = results
        events = HistoryEvents(
            called: called,
            returned: zip(results, returned).map { result, time in result == nil ? nil : time })
        completedCount = results.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        linearized = LinearizedSet(count: operations.count)
        explained = linearized
        memo = MemoTable(wordsPerSet: linearized.words.count)
        state = model
        closestState = model
        entry = Int(events.next[events.head])
        stackOperations.reserveCapacity(operations.count)
        stackStates.reserveCapacity(operations.count)
    }

    /// Searches on for at most `steps` steps (one step: one operation tried
    /// or one backed out), or until the clock passes `deadline`.
    mutating func advance(steps: Int, deadline: ContinuousClock.Instant) -> Progress {
        var stepsLeft = steps
        var stepsUntilClock = Self.stepsBetweenClockReadings
        while linearizedCompleted < completedCount {
            if stepsLeft == 0 { return .undecided }
            stepsLeft -= 1
            stepsUntilClock -= 1
            if stepsUntilClock == 0 {
                stepsUntilClock = Self.stepsBetweenClockReadings
                if ContinuousClock.now >= deadline { return .timedOut }
            }
            if events.isCall[entry] {
                tryToLinearize(Int(events.operationOf[entry]))
            } else if let conclusion = backOut() {
                return .decided(conclusion)
            }
        }
        return .decided(.linearizable(order: stackOperations))
    }

    /// Applies `operation` (whose call is `entry`) to a copy of the state:
    /// when the result matches and the pair is new, it joins the order and
    /// the search starts again from the head of the list; otherwise the
    /// search moves on to the next entry.
    private mutating func tryToLinearize(_ operation: Int) {
        var after = state
        let result = after.apply(operations[operation])
        let expected = results[operation]
        guard expected == nil || expected == result else {
            entry = Int(events.next[entry])
            return
        }
        explained.insert(operation)
        linearized.insert(operation)
        guard memo.insert(linearized, after) else {
            linearized.remove(operation)
            entry = Int(events.next[entry])
            return
        }
        stackOperations.append(operation)
        stackStates.append(state)
        state = after
        events.unlink(operation)
        if expected != nil { linearizedCompleted += 1 }
        entry = Int(events.next[events.head])
    }

    /// At a completed operation's return (pending returns sort after all of
    /// them, so the search has succeeded before it reaches one): that
    /// operation must come before anything later, and nothing from here
    /// made it so. Takes back the last operation of the order and goes on
    /// with the entry after its call; with nothing to take back, no order
    /// exists.
    private mutating func backOut() -> Conclusion? {
        if stackOperations.count > closest.count || blocker < 0 {
            closest = stackOperations
            closestState = state
            blocker = Int(events.operationOf[entry])
        }
        guard let operation = stackOperations.popLast(), let previous = stackStates.popLast() else {
            return .violated(closest: closest, closestState: closestState, unexplained: unexplained())
        }
        state = previous
        linearized.remove(operation)
        events.relink(operation)
        if results[operation] != nil { linearizedCompleted -= 1 }
        entry = Int(events.next[Int(events.callEntry[operation])])
        return nil
    }

    /// The completed operations no order explained, or, when each was
    /// explained by some order, the one the closest order could not reach.
    private func unexplained() -> [Int] {
        let never = (0..<operations.count).filter { results[$0] != nil && !explained.contains($0) }
        if !never.isEmpty { return never }
        return blocker >= 0 ? [blocker] : []
    }
}
