/// What a linearizability check runs: a thread-safe object, its sequential
/// model, how operations are drawn, and how a worker calls one. Two kinds
/// exist: closures given in Swift (`StressTest.linearizable`), whose calls
/// bring their own synchronization, and a workload with a model (a plan's
/// `check: linearizable`), whose operations are steps the strategy under
/// test guards.
package protocol LinearizabilitySubject: Sendable {
    /// The plain, single-threaded truth.
    associatedtype Model: SequentialModel
    /// The object under test, fresh for every round.
    associatedtype Object: AnyObject & Sendable

    /// The model of a fresh object.
    var model: Model { get }
    /// Resources the strategy guards (one lock, queue or actor each).
    var resourceCount: Int { get }

    /// A fresh object.
    func makeObject() -> Object
    /// One operation with its arguments, drawn from `random`.
    func generate(_ random: inout SplitMix64) -> Model.Operation
    /// Calls `operation` on `object` with no other thread running (the
    /// initial and final parts of a scenario).
    func runAlone(_ operation: Model.Operation, on object: Object) -> Model.Result
    /// The steps worker `worker` runs for its operation number `slot` of
    /// every round (a slot the round's scenario leaves empty does nothing).
    func slotSteps(worker: Int, slot: Int) -> [Step<LinearizabilityRound<Self>>]

    /// The scenario's name and parameters, for a subject registered as a
    /// scenario (the Swift entry point's); a workload's check is not.
    static var descriptor: ScenarioDescriptor { get }
    /// The subject, shape and checker time bound that `parameters` describe,
    /// for a subject registered as a scenario.
    static func make(parameters: WorkloadParameters) throws -> (Self, LinearizabilityShape, Duration)
}

extension LinearizabilitySubject {
    /// One resource.
    package var resourceCount: Int { 1 }

    /// A hidden scenario named for the model.
    package static var descriptor: ScenarioDescriptor {
        var descriptor = ScenarioDescriptor(name: "linearizability", summary: "a linearizability check", hidden: true)
        descriptor.maxStride = LinearizabilityShape.maxStride
        return descriptor
    }

    /// Not registered as a scenario: always throws.
    package static func make(parameters: WorkloadParameters) throws -> (Self, LinearizabilityShape, Duration) {
        throw WorkloadParameterError(parameter: "", "this linearizability check is made by its workload, not by parameters")
    }

    /// One unguarded step that calls the operation with the clock read
    /// around it: the object does its own synchronization.
    package func slotSteps(worker: Int, slot: Int) -> [Step<LinearizabilityRound<Self>>] {
        [.unguarded("op \(slot)") { round, _ in
            guard let operation = round.operation(worker: worker, slot: slot) else { return .next }
            round.recorder.call(worker: worker, index: slot)
            let result = round.subject.runAlone(operation, on: round.object)
            round.recorder.complete(worker: worker, index: slot, result: result)
            return .next
        }]
    }
}

/// One round of a linearizability check: a fresh object, the scenario it
/// runs, and the history its workers record. The initial part runs when the
/// round is made; the final part when it is checked.
package final class LinearizabilityRound<Subject: LinearizabilitySubject>: @unchecked Sendable {
    // @unchecked: the workers call the object (its own synchronization, or
    // the strategy's, is what is under test) and write their own recorder
    // buffers; everything else is written before the workers start or after
    // they have met at the round's barrier.
    package typealias Operation = Subject.Model.Operation
    package typealias Result = Subject.Model.Result

    package let subject: Subject
    package let object: Subject.Object
    /// What this round runs.
    package let scenario: ConcurrentScenario<Operation>
    /// Which scenario (or shrink candidate) it is, for the run's bookkeeping.
    package let ticket: Int
    package let recorder: HistoryRecorder<Result>
    /// The initial part, as it ran.
    private(set) var initial: [HistoryOperation<Operation, Result>] = []

    package init(subject: Subject, scenario: ConcurrentScenario<Operation>, ticket: Int, shape: LinearizabilityShape) {
        self.subject = subject
        self.scenario = scenario
        self.ticket = ticket
        object = subject.makeObject()
        recorder = HistoryRecorder(workers: shape.threads, capacity: shape.operationsPerThread)
        initial = runSequentially(scenario.before)
    }

    /// Worker `worker`'s operation number `slot`, nil when its list is shorter.
    @inline(__always)
    package func operation(worker: Int, slot: Int) -> Operation? {
        guard worker < scenario.parallel.count, slot < scenario.parallel[worker].count else { return nil }
        return scenario.parallel[worker][slot]
    }

    /// Runs the final part and returns the whole history: initial part,
    /// parallel part, final part. Call once, after every worker has finished.
    package func finish() -> [HistoryOperation<Operation, Result>] {
        let parallel = recorder.history(parallel: scenario.parallel)
        let final = runSequentially(scenario.after)
        return initial + parallel + final
    }

    /// Runs `operations` one by one on this thread, recorded as worker -1.
    private func runSequentially(_ operations: [Operation]) -> [HistoryOperation<Operation, Result>] {
        operations.map { operation in
            let called = recorder.tick()
            let result = subject.runAlone(operation, on: object)
            return HistoryOperation(worker: -1, operation: operation, result: result, called: called, returned: recorder.tick())
        }
    }
}
