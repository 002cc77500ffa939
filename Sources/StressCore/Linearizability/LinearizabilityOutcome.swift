/// What the linearizability checker concluded about a history.
package enum LinearizabilityVerdict: String, Sendable, Codable {
    /// Some sequential order of the operations, consistent with real time,
    /// gives every recorded result on the model.
    case linearizable
    /// No such order exists: at least one result is wrong for every order.
    case violated
    /// The time bound ran out before the search could decide; nothing is
    /// claimed either way.
    case unknown
}

/// The checker's answer for one history: the verdict, and the orders that
/// explain it, as indices into the history it was given.
package struct LinearizabilityOutcome<M: SequentialModel>: Sendable {
    /// Linearizable, violated or unknown.
    package var verdict: LinearizabilityVerdict
    /// Linearizable: a witness, every completed operation (and the pending
    /// ones the witness needs) in a sequential order that respects real time
    /// and gives the recorded results. Pending operations it leaves out are
    /// absent. Nil otherwise.
    package var order: [Int]?
    /// Violated: the longest order the search could linearize, of the
    /// operations of the part of the state that failed (all operations when
    /// the model does not partition). Nil otherwise.
    package var closest: [Int]?
    /// Violated: the model's state after `closest`, starting from the model
    /// the checker was given. Nil otherwise.
    package var closestState: M?
    /// Violated: the operations whose results no order explains. The
    /// completed operations the search tried, each time after a valid order
    /// of operations before it, and whose recorded result no such order
    /// produced; when every result tried was produced by some order (only
    /// their combination is impossible), the operation that no extension of
    /// `closest` could take next. Operations never reached (everything
    /// before them already failed) are not listed. Empty otherwise.
    package var unexplained: [Int]
    /// How many distinct (linearized operations, model state) pairs the
    /// search reached: its work, for benchmarks and reports.
    package var statesExplored: Int

    package init(
        verdict: LinearizabilityVerdict, order: [Int]? = nil, closest: [Int]? = nil,
        closestState: M? = nil, unexplained: [Int] = [], statesExplored: Int
    ) {
        self.verdict = verdict
        self.order = order
        self.closest = closest
        self.closestState = closestState
        self.unexplained = unexplained
        self.statesExplored = statesExplored
    }
}
