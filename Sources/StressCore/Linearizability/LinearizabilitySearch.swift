/// Wing and Gong's search for a linearization of one partition's history,
/// with Lowe's memoization: depth first, it linearizes any operation whose
/// call precedes every return still pending in the list, moves the model to
/// the state the operation leads to, and keeps going while the results
/// match; it backs out when the next return in real time cannot be reached.
/// A (linearized set, model state) pair it has reached before is not
/// explored again: whatever order led there, what can follow is the same.
///
/// Pending operations (no result) may be linearized anywhere after their
/// call, with whatever result the model gives, or left out: the search
/// succeeds as soon as every completed operation is linearized.
///
/// Model states are numbers here (``ModelStates`` keeps the states), and
/// what an operation does to a state is asked of a closure only the first
/// time (``TransitionTable``), so this loop runs no generic code and
/// allocates only when a table grows. It runs in slices
/// (`advance(steps:deadline:next:)`), so the checker can share its time
/// among partitions and stop at the first violation wherever it is.
struct LinearizabilitySearch {
    /// What one partition's search concluded, in the partition's own
    /// operation numbers.
    enum Conclusion {
        case linearizable(order: [Int])
        case violated(closest: [Int], closestState: Int32, unexplained: [Int])
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

    private var events: HistoryEvents
    private let isCompleted: [Bool]
    private let completedCount: Int
    private var memo: MemoTable
    private var transitions = TransitionTable()
    /// Per operation: never tried, tried but its result never produced, or
    /// produced by some order.
    private var explanation: [Explanation]

    private enum Explanation: UInt8 {
        case untried, neverProduced, produced
    }

    // Where the search stands, kept between slices.
    private var state: Int32 = 0
    private var linearized: LinearizedSet
    private var linearizedCompleted = 0
    /// The order so far, and the state before each of its operations.
    private var stackOperations: [Int] = []
    private var stackStates: [Int32] = []
    /// The next entry to try.
    private var entry: Int
    /// The longest order backed out of, the state after it, and the
    /// operation whose return stopped it.
    private var closest: [Int] = []
    private var closestState: Int32 = 0
    private var blocker = -1

    /// Number of memo entries: the (set, state) pairs reached.
    var statesExplored: Int { memo.count }

    /// A search over one partition's operations, from model state 0, given
    /// their clock readings: `returned[i]` nil when operation `i` is pending.
    init(called: [UInt64], returned: [UInt64?]) {
        let count = called.count
        events = HistoryEvents(called: called, returned: returned)
        isCompleted = returned.map { $0 != nil }
        completedCount = isCompleted.reduce(0) { $0 + ($1 ? 1 : 0) }
        linearized = LinearizedSet(count: count)
        memo = MemoTable(wordsPerSet: linearized.words.count)
        explanation = [Explanation](repeating: .untried, count: count)
        entry = Int(events.next[events.head])
        stackOperations.reserveCapacity(count)
        stackStates.reserveCapacity(count)
    }

    /// Searches on for at most `steps` steps (one step: one operation tried
    /// or one backed out), or until the clock passes `deadline`.
    ///
    /// - Parameter next: The state operation `o` leads to from state `s`,
    ///   or ``TransitionTable/mismatch``; asked once per pair.
    mutating func advance(
        steps: Int, deadline: ContinuousClock.Instant, next: (_ s: Int32, _ o: Int) -> Int32
    ) -> Progress {
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
                let operation = Int(events.operationOf[entry])
                let after: Int32
                if let known = transitions.next(from: state, by: operation) {
                    after = known
                } else {
                    after = next(state, operation)
                    transitions.record(from: state, by: operation, next: after)
                }
                tryToLinearize(operation, leadingTo: after)
            } else if let conclusion = backOut() {
                return .decided(conclusion)
            }
        }
        return .decided(.linearizable(order: stackOperations))
    }

    /// When `operation` (whose call is `entry`) gives its recorded result
    /// and the pair it leads to is new, it joins the order and the search
    /// starts again from the head of the list; otherwise the search moves on
    /// to the next entry.
    private mutating func tryToLinearize(_ operation: Int, leadingTo after: Int32) {
        guard after != TransitionTable.mismatch else {
            if explanation[operation] == .untried { explanation[operation] = .neverProduced }
            entry = Int(events.next[entry])
            return
        }
        explanation[operation] = .produced
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
        if isCompleted[operation] { linearizedCompleted += 1 }
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
        if isCompleted[operation] { linearizedCompleted -= 1 }
        entry = Int(events.next[Int(events.callEntry[operation])])
        return nil
    }

    /// The completed operations the search tried (each time after a valid
    /// order of operations before it) and whose result no such order
    /// produced; or, when every result tried was produced by some order, the
    /// operation the closest order could not take next. Operations the
    /// search never reached are not counted: nothing valid came before them.
    private func unexplained() -> [Int] {
        let never = explanation.indices.filter { explanation[$0] == .neverProduced }
        if !never.isEmpty { return never }
        return blocker >= 0 ? [blocker] : []
    }
}
