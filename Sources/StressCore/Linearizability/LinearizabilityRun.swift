import Synchronization

/// One trial's linearizability check: hands each round its scenario (drawn
/// from the trial's seed, `runsPerScenario` rounds each), checks each round's
/// history, and, from the first violation on, shrinks the failing scenario
/// by running smaller ones in the rounds that follow.
///
/// The rounds themselves run in the engine, like any scenario's, so a
/// shrink candidate runs exactly as the scenario that failed did: free with
/// the trial's fuzzing, or under controlled scheduling.
package final class LinearizabilityRun<Subject: LinearizabilitySubject>: @unchecked Sendable {
    // @unchecked: `seed` is written once, before the trial's first round;
    // the counters are atomics and the failure is behind a mutex.
    package typealias Operation = Subject.Model.Operation
    package typealias Result = Subject.Model.Result
    package typealias Round = LinearizabilityRound<Subject>

    package let subject: Subject
    package let shape: LinearizabilityShape
    /// How long the checker may take on one history before it says `unknown`.
    package let timeLimit: Duration
    private var seed: UInt64 = 1

    /// Rounds made so far: the next one's number.
    private let made = Atomic<Int>(0)
    private let checked = Atomic<Int>(0)
    private let undecided = Atomic<Int>(0)
    private let scenarios = Atomic<Int>(0)
    private let lastTicket = Atomic<Int>(-1)
    /// True from the first violation on: rounds then come from the shrink.
    private let shrinking = Atomic<Bool>(false)
    private let failure = Mutex<Shrinker?>(nil)

    package init(subject: Subject, shape: LinearizabilityShape, timeLimit: Duration) {
        self.subject = subject
        self.shape = shape
        self.timeLimit = timeLimit
    }

    /// Sets the trial's seed, before its first round is made.
    package func begin(seed: UInt64) { self.seed = seed }

    /// The scenario number `index` of this trial.
    package func scenario(_ index: Int) -> ConcurrentScenario<Operation> {
        ConcurrentScenario(shape: shape, seed: SplitMix64.derive(seed, UInt64(index))) { subject.generate(&$0) }
    }

    /// The most rounds a shrink gives one candidate before it moves on:
    /// a candidate that still fails usually does within a few, and the
    /// rounds spent on candidates that pass are what a shrink costs.
    static var mostRunsPerCandidate: Int { 30 }

    /// A fresh round: the next run of the current scenario, or of the
    /// shrink's current candidate.
    package func nextRound() -> Round {
        if shrinking.load(ordering: .acquiring), let (candidate, ticket) = failure.withLock({ $0?.nextCandidate() }) {
            return Round(subject: subject, scenario: candidate, ticket: ticket, shape: shape)
        }
        let index = made.wrappingAdd(1, ordering: .relaxed).oldValue / shape.runsPerScenario
        return Round(subject: subject, scenario: scenario(index), ticket: index, shape: shape)
    }

    /// Checks a round once its workers have finished: runs its final part,
    /// checks the history, and says what was wrong, if anything.
    package func judge(_ round: Round) -> RoundOutcome {
        let history = round.finish()
        let outcome = LinearizabilityChecker.check(history, model: subject.model, timeLimit: timeLimit)
        checked.wrappingAdd(1, ordering: .relaxed)
        if round.ticket >= 0, lastTicket.exchange(round.ticket, ordering: .relaxed) != round.ticket {
            scenarios.wrappingAdd(1, ordering: .relaxed)
        }
        switch outcome.verdict {
        case .linearizable:
            if round.ticket < 0 { failure.withLock { $0?.candidatePassed(ticket: round.ticket) } }
            return RoundOutcome()
        case .unknown:
            undecided.wrappingAdd(1, ordering: .relaxed)
            if round.ticket < 0 { failure.withLock { $0?.candidatePassed(ticket: round.ticket) } }
            return RoundOutcome()
        case .violated:
            let (entries, position) = Self.entries(history, unexplained: outcome.unexplained)
            let found = Shrinker.Found(scenario: round.scenario, history: entries, closest: outcome.closest?.map { position[$0] },
                                       closestState: outcome.closestState.map(\.stateDescription))
            failure.withLock { shrink in
                if shrink == nil {
                    shrink = Shrinker(first: found, runsPerCandidate: min(shape.runsPerScenario, Self.mostRunsPerCandidate))
                } else {
                    shrink?.candidateFailed(ticket: round.ticket, found)
                }
            }
            shrinking.store(true, ordering: .releasing)
            let wrong = entries.filter { $0.unexplained == true }.prefix(3)
                .map { "\($0.operation) → \($0.result ?? "(pending)")" + ($0.worker >= 0 ? " on thread \($0.worker)" : "") }
            return RoundOutcome().violating("not linearizable: no sequential order explains "
                                            + (wrong.isEmpty ? "the results" : wrong.joined(separator: ", "))
                                            + " (\(history.count) operations)")
        }
    }

    /// What the trial found, for its record; call after its last round.
    package func record() -> LinearizabilityRecord {
        var record = LinearizabilityRecord(verdict: .linearizable, scenarios: scenarios.load(ordering: .relaxed),
                                           histories: checked.load(ordering: .relaxed), undecided: undecided.load(ordering: .relaxed))
        if record.undecided > 0 { record.verdict = .unknown }
        if let shrink = failure.withLock({ $0 }) {
            record.verdict = .violated
            record.history = shrink.best.history
            record.closest = shrink.best.closest
            record.closestState = shrink.best.closestState
            record.shrink = .init(from: shrink.firstCount, to: shrink.best.scenario.count, complete: shrink.isComplete)
        }
        return record
    }

    /// A history as the record shows it, in the order of the calls, and
    /// where each operation of `history` went in it.
    static func entries(_ history: [HistoryOperation<Operation, Result>], unexplained: [Int]) -> ([LinearizabilityRecord.Entry], [Int]) {
        let wrong = Set(unexplained)
        let order = history.indices.sorted { history[$0].called < history[$1].called }
        var position = Array(repeating: 0, count: history.count)
        for (at, i) in order.enumerated() { position[i] = at }
        let entries = order.map { i in
            let op = history[i]
            return LinearizabilityRecord.Entry(worker: op.worker, operation: describe(op.operation),
                                        result: op.result.map(describe), call: op.called,
                                        return: op.result == nil ? nil : op.returned, unexplained: wrong.contains(i) ? true : nil)
        }
        return (entries, position)
    }

    /// A value as a report shows it: an optional's value, or `nil`, rather
    /// than `Optional(3)`.
    static func describe(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return String(describing: value) }
        return mirror.children.first.map { describe($0.value) } ?? "nil"
    }

    /// The shrink of a failing scenario: tries each scenario with one
    /// operation fewer for up to `runsPerCandidate` rounds; the first that
    /// fails becomes the one to shrink, until none does.
    struct Shrinker {
        /// A failing scenario and its history.
        struct Found {
            var scenario: ConcurrentScenario<Operation>
            var history: [LinearizabilityRecord.Entry]
            var closest: [Int]?
            var closestState: String?
        }

        private(set) var best: Found
        let firstCount: Int
        let runsPerCandidate: Int
        private var candidates: [ConcurrentScenario<Operation>]
        private var index = 0
        private var runsLeft: Int
        /// The current candidate's ticket: negative, so that rounds of
        /// candidates are told from rounds of drawn scenarios.
        private var ticket = -1

        init(first: Found, runsPerCandidate: Int) {
            best = first
            firstCount = first.scenario.count
            self.runsPerCandidate = runsPerCandidate
            runsLeft = runsPerCandidate
            candidates = first.scenario.withOneOperationFewer
        }

        /// True once every candidate of the best scenario passed.
        var isComplete: Bool { index >= candidates.count }

        /// The candidate to run next and its ticket; nil once complete.
        mutating func nextCandidate() -> (ConcurrentScenario<Operation>, Int)? {
            isComplete ? nil : (candidates[index], ticket)
        }

        /// A round of candidate `ticket` passed: after its runs, the next candidate.
        mutating func candidatePassed(ticket: Int) {
            guard ticket == self.ticket, !isComplete else { return }
            runsLeft -= 1
            if runsLeft <= 0 { advance(to: index + 1) }
        }

        /// A round of candidate `ticket` failed: it becomes the one to shrink.
        mutating func candidateFailed(ticket: Int, _ found: Found) {
            guard ticket == self.ticket, !isComplete, found.scenario.count < best.scenario.count else { return }
            best = found
            candidates = found.scenario.withOneOperationFewer
            advance(to: 0)
        }

        private mutating func advance(to next: Int) {
            index = next
            runsLeft = runsPerCandidate
            ticket -= 1
        }
    }
}
