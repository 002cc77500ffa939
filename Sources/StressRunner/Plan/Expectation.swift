import StressCore

/// What a plan says its trials must do: the `expect` key of an experiment (or
/// of `defaults`).
///
/// Without it every trial must pass. A plan that runs a bug on purpose (the
/// `unsynchronized` control, a buggy `variant`) says which outcome it
/// expects instead, for the whole experiment or per strategy, and per
/// strategy at one thread count:
///
/// ```yaml
/// expect: violated                                  # every trial of the experiment
/// expect: { unsynchronized/t4: violated }           # one strategy at 4 workers; the rest must pass
/// expect: { pthread-mutex: deadlock, mutex: crashed, target-queue: [deadlock, crashed] }
/// ```
///
/// A trial that does what its plan expects counts as passing ("caught, as
/// expected"); one the plan expects to fail that passes is a failure of its
/// own: the checks have gone blind.
package struct Expectation: Sendable, Equatable {
    /// The outcomes a plan may expect.
    package static let expectable: [TrialOutcome] = [.passed, .violated, .deadlock, .hang, .crashed]

    /// For every trial of the experiment (`expect: violated`); nil when the
    /// plan gave a mapping.
    package var all: [TrialOutcome]?
    /// Per strategy (`expect: { unsynchronized: violated }`).
    package var byStrategy: [String: [TrialOutcome]]
    /// Per strategy at one thread count (`expect: { unsynchronized/t4: violated }`),
    /// which wins over the strategy's own entry.
    package var byStrategyAndThreads: [StrategyThreads: [TrialOutcome]]

    /// A strategy at one worker count: a key of ``byStrategyAndThreads``.
    package struct StrategyThreads: Sendable, Hashable {
        /// The strategy's name.
        package var strategy: String
        /// The worker count.
        package var threads: Int

        /// A key.
        package init(strategy: String, threads: Int) {
            self.strategy = strategy
            self.threads = threads
        }
    }

    /// Every trial must pass: no `expect` key.
    package static let passing = Expectation()

    /// An expectation.
    package init(all: [TrialOutcome]? = nil, byStrategy: [String: [TrialOutcome]] = [:],
                byStrategyAndThreads: [StrategyThreads: [TrialOutcome]] = [:]) {
        self.all = all
        self.byStrategy = byStrategy
        self.byStrategyAndThreads = byStrategyAndThreads
    }

    /// The outcomes a trial of `strategy` at `threads` workers may have:
    /// the most specific entry, else `[passed]`.
    package func outcomes(strategy: String, threads: Int) -> [TrialOutcome] {
        byStrategyAndThreads[StrategyThreads(strategy: strategy, threads: threads)]
            ?? byStrategy[strategy] ?? all ?? [.passed]
    }

    /// What a trial's record carries: nil for "must pass" (the default, which
    /// keeps the records of ordinary plans as they were).
    func recorded(strategy: String, threads: Int) -> [TrialOutcome]? {
        let outcomes = outcomes(strategy: strategy, threads: threads)
        return outcomes == [.passed] ? nil : outcomes
    }
}

/// How a finished trial stands against what its plan expects of it.
package enum ExpectationStatus: String, Sendable, Codable, CaseIterable {
    /// It passed, and the plan expects it to.
    case passed
    /// It failed the way the plan expects ("caught, as expected"): counts as passing.
    case caught
    /// The plan expects it to fail, and it passed: the checks did not see the
    /// bug they are there to see. A failure of its own.
    case missed
    /// It failed, and the plan does not expect that failure.
    case unexpected
    /// Not run.
    case skipped

    /// Whether this counts as a failure of the run.
    public var isFailure: Bool { self == .missed || self == .unexpected }
}

extension TrialResult {
    /// The outcomes the plan expects of this trial (`[passed]` unless it says otherwise).
    public var expectedOutcomes: [TrialOutcome] { trial.expect ?? [.passed] }

    /// How this trial stands against what its plan expects of it.
    package var expectation: ExpectationStatus {
        if outcome == .skipped { return .skipped }
        let expected = expectedOutcomes
        if expected.contains(outcome) { return outcome == .passed ? .passed : .caught }
        return outcome == .passed ? .missed : .unexpected
    }

    /// `violated`, `deadlock or crashed`: what the plan expects, for messages.
    public var expectedText: String {
        expectedOutcomes.map(\.rawValue).joined(separator: " or ")
    }
}
