/// A workload with a sequential model: a plan can ask for `check:
/// linearizable` on it. Its operations are then drawn into scenarios and run
/// as steps the strategy under test guards, and each round's history is
/// checked against the model instead of the workload's own invariants.
package protocol LinearizableWorkload: Workload {
    /// The workload's state as one thread would see it.
    associatedtype Model: SequentialModel

    /// The model of a fresh state.
    func model() -> Model

    /// One operation with its arguments, drawn from `random` (with the
    /// workload's own mix: its ratios and key distribution).
    func generateOperation(_ random: inout SplitMix64) -> Model.Operation

    /// Each kind of operation as steps on the state, in the workload's
    /// variant (a buggy variant's steps are buggy here too).
    func linearizableForms() -> [LinearizableForm<State, Model>]
}

/// One kind of operation of a ``LinearizableWorkload``: which operations it
/// runs, how their arguments reach its steps (the frame's registers), its
/// steps, and how the result is read back from the registers.
package struct LinearizableForm<State: AnyObject & Sendable, Model: SequentialModel>: Sendable {
    /// The kind's name (`increment`), shown in step names.
    package var name: String
    /// True for the operations this form runs.
    package var matches: @Sendable (Model.Operation) -> Bool
    /// Puts the operation's arguments in the frame's registers `r0`..`r3`.
    package var load: @Sendable (Model.Operation, inout OpFrame) -> Void
    /// The steps, which leave the result in the registers.
    package var steps: [Step<State>]
    /// The result, from the registers once the steps have run.
    package var result: @Sendable (Model.Operation, inout OpFrame) -> Model.Result

    package init(_ name: String, matches: @escaping @Sendable (Model.Operation) -> Bool,
                 load: @escaping @Sendable (Model.Operation, inout OpFrame) -> Void = { _, _ in },
                 steps: [Step<State>], result: @escaping @Sendable (Model.Operation, inout OpFrame) -> Model.Result) {
        self.name = name
        self.matches = matches
        self.load = load
        self.steps = steps
        self.result = result
    }
}

/// A linearizability check of a workload: a fresh state each round (made for
/// one thread more than the workers: the initial and final parts run as
/// that extra thread), the workload's forms as each slot's steps.
package struct WorkloadSubject<W: LinearizableWorkload>: LinearizabilitySubject {
    package let workload: W
    package let threads: Int
    package let model: W.Model
    let forms: [LinearizableForm<W.State, W.Model>]

    package init(_ workload: W, threads: Int) {
        self.workload = workload
        self.threads = threads
        model = workload.model()
        forms = workload.linearizableForms()
    }

    package var resourceCount: Int { workload.resourceCount }

    package func makeObject() -> W.State { workload.makeState(threads: threads + 1) }

    package func generate(_ random: inout SplitMix64) -> W.Model.Operation { workload.generateOperation(&random) }

    /// The form's steps one after the other, their accesses not taken: no
    /// other thread runs.
    package func runAlone(_ operation: W.Model.Operation, on state: W.State) -> W.Model.Result {
        var frame = OpFrame(thread: threads, seed: 0)
        guard let form = forms.first(where: { $0.matches(operation) }) else {
            preconditionFailure("workload \(W.descriptor.name) has no linearizable form for \(operation)")
        }
        form.load(operation, &frame)
        for step in form.steps {
            if case .next = step.body(state, &frame) { continue }
            break
        }
        return form.result(operation, &frame)
    }

    /// Register 15 holds, within a slot, the form running (its index + 1,
    /// 0 for none); a step of another form passes.
    private static var formRegister: Int { 15 }

    package func slotSteps(worker: Int, slot: Int) -> [Step<LinearizabilityRound<WorkloadSubject>>] {
        let forms = self.forms
        let formRegister = Self.formRegister
        var steps: [Step<LinearizabilityRound<WorkloadSubject>>] = [
            .unguarded("call \(slot)") { round, frame in
                frame[register: formRegister] = 0
                (frame.r0, frame.r1, frame.r2, frame.r3) = (0, 0, 0, 0)
                guard let operation = round.operation(worker: worker, slot: slot),
                      let form = forms.firstIndex(where: { $0.matches(operation) }) else { return .next }
                forms[form].load(operation, &frame)
                frame[register: formRegister] = form + 1
                round.recorder.call(worker: worker, index: slot)
                return .next
            },
        ]
        for (index, form) in forms.enumerated() {
            for step in form.steps {
                steps.append(Step("\(form.name)/\(step.name)", access: step.access) { round, frame in
                    guard frame[register: formRegister] == index + 1 else { return .next }
                    switch step.body(round.object, &frame) {
                    case .next: return .next
                    // The form ended early (a full queue): its later steps pass.
                    case .finish, .violation: frame[register: formRegister] = -(index + 1)
                    }
                    return .next
                })
            }
        }
        steps.append(.unguarded("return \(slot)") { round, frame in
            let running = abs(frame[register: formRegister])
            guard running > 0, let operation = round.operation(worker: worker, slot: slot) else { return .next }
            let result = forms[running - 1].result(operation, &frame)
            round.recorder.complete(worker: worker, index: slot, result: result)
            frame[register: formRegister] = 0
            return .next
        })
        return steps
    }
}

extension LinearizableWorkload {
    /// Runs one trial of this workload's linearizability check: scenarios of
    /// the default shape for `settings.threads` workers.
    package static func runLinearizabilityTrial(
        parameters: WorkloadParameters, strategy: StrategyEntry, settings: TrialSettings,
        onStall: @escaping @Sendable (StallReport) -> Void
    ) throws -> EngineOutput {
        let workload = try Self(parameters: parameters)
        let subject = WorkloadSubject(workload, threads: settings.threads)
        let scenario = LinearizabilityScenario(subject: subject, shape: LinearizabilityShape(threads: settings.threads),
                                               timeLimit: .seconds(1))
        // As any scenario's trial: under control, a failure's schedule is
        // shrunk, or the schedules explored, each run from a fresh strategy
        // instance (and a fresh check: TrialEngine begins one per run).
        return try ScheduleSearch.run(settings, scenario: true, onStall: onStall) { settings, onStall in
            let instance = try strategy.make(StrategySetup(resources: workload.resourceCount, threads: settings.threads))
            return try TrialEngine.run(scenario, strategy: instance, settings: settings, onStall: onStall)
        }
    }
}
