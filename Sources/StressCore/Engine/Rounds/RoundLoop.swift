extension Worker {
    /// Prepares the frame for role `role` (a scenario's worker runs its own
    /// role, not one picked by weight).
    @inline(__always)
    mutating func beginRole(_ role: Int) {
        frame.beginOperation(number: opNumber, siteBase: siteBase[role])
        opNumber &+= 1
    }

    /// Arbitrates states `frame.thread`, `+ roles`, ... of a stride of `k`
    /// rounds starting at `base`, counts their outcomes and resets them.
    mutating func arbitrate(_ rounds: RoundProgram, stride k: Int, base: Int, measured: Bool) {
        frame.probe.publish(SiteWord(site: rounds.arbiterSite, phase: .running))
        var j = frame.thread
        while j < k {
            let state = rounds.states[j]
            let outcome = rounds.arbiter(state)
            let counted = outcomes!.count(outcome, round: base &+ j, measured: measured, grade: rounds.grade)
            if counted.grade == .forbidden || outcome.violation != nil {
                recordRoundViolation(outcome, round: base &+ j, grade: counted.grade == .forbidden ? rounds.grade(outcome) : nil)
            }
            rounds.states[j] = rounds.reset(state)
            j &+= rounds.roles
        }
    }

    /// Books a round's violation: a forbidden outcome, or one the arbiter reported.
    @inline(never)
    mutating func recordRoundViolation(_ outcome: RoundOutcome, round: Int, grade: OutcomeGrade?) {
        var parts: [String] = []
        if let meaning = grade?.meaning { parts.append("forbidden outcome \(outcome): \(meaning)") }
        if let message = outcome.violation { parts.append(message) }
        recordViolation(message: "round \(round): " + parts.joined(separator: "; "), operation: "arbiter", atOperation: false)
    }
}

/// The round loops: a worker runs its role over each stride, arbitrates its
/// share, and meets the others, until the decider says the phase is over.
enum RoundLoop {
    /// For a worker thread under a blocking strategy. `round` is the number
    /// of the next round (all workers agree on it); returns it after the loop.
    static func run(
        _ worker: inout Worker, _ program: CompiledProgram, _ rounds: RoundProgram, _ access: BlockingAccess,
        _ control: TrialControl, phase: Int, round start: Int
    ) -> Int {
        let me = worker.frame.thread
        let measured = phase == TrialControl.measure
        var round = start
        var k = rounds.firstStride
        // Whether each role waits a seeded stagger first: asked once, not at
        // every role, where the asking copied the fuzzer (248 bytes) twice.
        let staggering = worker.frame.fuzz.active && worker.frame.fuzz.staggers
        let barriers = rounds.threadBarriers
        // Under control the barriers are met in the scheduler's model: a
        // worker that arrives early is blocked there and hands the token on.
        // Unretained: the scheduler is the trial's and outlives this loop.
        // Held strongly, it was retained and released around every meeting,
        // a count in its first cache line that both workers write.
        let controlled = worker.ambient.pointee.scheduling.map { Unmanaged.passUnretained($0) }
        while k > 0 {
            for j in 0..<k {
                if staggering { worker.frame.fuzz.pause(nanoseconds: worker.frame.fuzz.stagger(round: round &+ j)) }
                worker.beginRole(me)
                let (result, step) = execute(me, program, state: rounds.states[j], access: access, frame: &worker.frame)
                worker.end(me, result, step: step, measured: measured)
            }
            worker.publish(.atBarrier)
            if let controlled {
                _ = controlled._withUnsafeGuaranteedRef { $0.meet(me, at: ControlledScheduler.rolesBarrier, parties: rounds.roles) { 0 } }
            } else {
                _ = barriers.roles.arriveAndWait { 0 }
            }
            worker.arbitrate(rounds, stride: k, base: round, measured: measured)
            worker.publish(.atBarrier)
            let next = round &+ k
            // Unretained for the same reason: the program and the control
            // are the trial's, and the closure is called, if at all, within
            // the meeting below.
            let decide = { [unowned(unsafe) rounds, unowned(unsafe) control] in
                rounds.decide(phase: phase, control: control, nextRound: next, measured: measured)
            }
            if let controlled {
                k = controlled._withUnsafeGuaranteedRef {
                    $0.meet(me, at: ControlledScheduler.arbitrationBarrier, parties: rounds.roles, decide: decide)
                }
            } else {
                k = barriers.arbitration.arriveAndWait(decide)
            }
            round = next
            worker.publish(.betweenOperations)
        }
        return round
    }

    /// For a task worker under an isolating strategy (actors).
    static func run<State: AnyObject & Sendable>(
        _ worker: inout Worker, _ operations: [StressOperation<State>], _ rounds: RoundProgram, _ strategy: any IsolatingStrategy,
        _ control: TrialControl, phase: Int, round start: Int
    ) async -> Int {
        let me = worker.frame.thread
        let measured = phase == TrialControl.measure
        var round = start
        var k = rounds.firstStride
        let fuzzing = worker.frame.fuzz.active
        let barriers = rounds.taskBarriers
        while k > 0 {
            for j in 0..<k {
                if fuzzing { worker.frame.fuzz.pause(nanoseconds: worker.frame.fuzz.stagger(round: round &+ j)) }
                worker.beginRole(me)
                let state = unsafeDowncast(rounds.states[j] as AnyObject, to: State.self)
                let (result, step) = await execute(operations[me], state: state, strategy: strategy, frame: &worker.frame, slot: worker.slot)
                worker.end(me, result, step: step, measured: measured)
            }
            worker.publish(.atBarrier)
            _ = await barriers.roles.arriveAndWait { 0 }
            worker.arbitrate(rounds, stride: k, base: round, measured: measured)
            worker.publish(.atBarrier)
            let next = round &+ k
            k = await barriers.arbitration.arriveAndWait {
                rounds.decide(phase: phase, control: control, nextRound: next, measured: measured)
            }
            round = next
            worker.publish(.betweenOperations)
        }
        return round
    }
}
