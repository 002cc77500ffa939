/// A scenario the engine runs for a trial and then asks for a record of its
/// own: a fresh copy for each run, with the run's seed, before the first
/// round; the record after the last.
package protocol RecordingScenario: Scenario {
    /// This scenario with nothing run yet, for a run with `seed` (a trial,
    /// or one run of a schedule search, which runs one scenario many times).
    func beginning(seed: UInt64) -> Self
    /// What the trial found, after its last round.
    func linearizabilityRecord() -> LinearizabilityRecord
}

/// A linearizability check as a scenario: worker `i` runs the parallel part's
/// operations of thread `i`, one step (or one operation's steps) per
/// operation, on a fresh object each round; the arbiter runs the final part
/// and checks the round's history (see ``LinearizabilityRun``). Because it is
/// a scenario like any other, fuzzing, controlled scheduling, the watchdog,
/// isolation and the trial records all apply.
package struct LinearizabilityScenario<Subject: LinearizabilitySubject>: RecordingScenario {
    package typealias State = LinearizabilityRound<Subject>

    package static var descriptor: ScenarioDescriptor { Subject.descriptor }

    package let run: LinearizabilityRun<Subject>

    /// A check of `subject` in scenarios of `shape`.
    package init(subject: Subject, shape: LinearizabilityShape, timeLimit: Duration) {
        run = LinearizabilityRun(subject: subject, shape: shape, timeLimit: timeLimit)
    }

    package init(parameters: WorkloadParameters) throws {
        let (subject, shape, timeLimit) = try Subject.make(parameters: parameters)
        self.init(subject: subject, shape: shape, timeLimit: timeLimit)
    }

    package var resourceCount: Int { run.subject.resourceCount }

    package func roles() -> [Role<State>] {
        (0..<run.shape.threads).map { worker in
            Role("thread \(worker)", steps: (0..<run.shape.operationsPerThread).flatMap { run.subject.slotSteps(worker: worker, slot: $0) })
        }
    }

    package func makeState() -> State { run.nextRound() }

    package func arbiter(_ state: State) -> RoundOutcome { run.judge(state) }

    package func grade(_ outcome: RoundOutcome) -> OutcomeGrade { .acceptable }

    package func beginning(seed: UInt64) -> LinearizabilityScenario {
        let fresh = LinearizabilityScenario(subject: run.subject, shape: run.shape, timeLimit: run.timeLimit)
        fresh.run.begin(seed: seed)
        return fresh
    }

    package func linearizabilityRecord() -> LinearizabilityRecord { run.record() }
}
