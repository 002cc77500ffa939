/// The trace: every scheduling point noted as an event (raw, in
/// ``TraceRing``), the locations the code under test passes, and the record
/// of every decision's alternatives that exploration branches on.
extension ControlledScheduler {
    /// The most events a trial keeps (the last ones).
    static let traceCapacity = 16_384

    /// Who decides once the forced decisions run out.
    enum Fallback {
        /// The seed's policy.
        case policy
        /// The worker that ran goes on while it can; when it cannot, the
        /// lowest-numbered runnable worker runs. A schedule then has no
        /// preemption but those its forced decisions make, which is what
        /// shrinking and exploration count.
        case nonPreemptive
    }

    /// One decision as exploration sees it: who passed the point (-1: none
    /// could go on), who could run, who was chosen.
    struct Choice: Equatable {
        var current: Int
        var runnable: UInt64
        var chosen: Int
        /// How many decisions `current` had passed before this one.
        var ordinal: Int
        /// Whether the switch was forced on a spinning worker, not chosen.
        var spun: Bool
        /// The timed waiter whose wait could time out here instead (-1:
        /// none): choosing it is that timeout.
        var timeout = -1
        /// What the chosen worker did until the next decision (known once
        /// that decision is made).
        var footprint = Footprint.opaque

        /// Whether `worker` could run here.
        func canRun(_ worker: Int) -> Bool { runnable & (1 << UInt64(worker)) != 0 }

        /// Whether choosing `worker` here preempts the current worker, or
        /// times a wait out while another could run: either is a deliberate
        /// deviation, which bounded search counts.
        func preempts(choosing worker: Int) -> Bool {
            (current >= 0 && canRun(current) && worker != current) || (worker == timeout && timeout >= 0)
        }

        /// The non-preemptive choice here.
        var defaultChoice: Int {
            if current >= 0 && canRun(current) { return current }
            return runnable == 0 ? current : runnable.trailingZeroBitCount
        }
    }

    /// What one transition (a worker's run from one decision to the next)
    /// touched, for exploration's sleep sets: only a transition that did
    /// nothing but take or give back primitives is known; any other may
    /// have touched any memory of the code under test.
    struct Footprint: Equatable {
        /// Whether the transition only took or gave back the primitives in ``keys``.
        var pure: Bool
        var keys: [UInt64]
        /// Whether it ran only the engine's own code between two of its
        /// points, where no code under test runs (between operations, from
        /// a step's start to its request for a section, from a section's
        /// release to the step's end): it touches nothing another worker sees.
        var local = false

        static let opaque = Footprint(pure: false, keys: [])

        /// Whether running the two in either order ends in the same state:
        /// one touches nothing shared, or both only synchronize, on
        /// different primitives.
        func commutes(with other: Footprint) -> Bool {
            if local || other.local { return true }
            return pure && other.pure && !keys.contains { other.keys.contains($0) }
        }
    }

    /// The `detail` the engine's own points carry (``OpFrame``'s built-in
    /// ones), and the bit that marks them where a decision is made.
    static let enginePoint = -2
    static let engineBit: UInt8 = 0x40

    /// Where a decision is made, for a transition's footprint: at a point
    /// (its raw value), inside a model operation, or elsewhere.
    static let decidedInModel: UInt8 = 0x20
    static let decidedElsewhere: UInt8 = 0
    /// At the workers' arrival (the first decision), and at a worker's
    /// departure: the engine's code around them runs no code under test.
    static let decidedAtArrival: UInt8 = 0x21 | engineBit
    static let decidedAtDeparture: UInt8 = 0x22 | engineBit

    /// Whether a transition that starts where a worker was paused at `start`
    /// and ends at a decision made at `end` ran only the primitive's code.
    static func isPure(start: UInt8, end: UInt8) -> Bool {
        let (s, e) = (start & ~engineBit, end & ~engineBit)
        let startsAtSync = s == UInt8(FuzzPoint.beforeAcquire.rawValue) || s == UInt8(FuzzPoint.beforeRelease.rawValue)
        let endsAtSync = e == UInt8(FuzzPoint.afterAcquire.rawValue) || e == UInt8(FuzzPoint.afterRelease.rawValue)
            || end == decidedInModel
        return start != decidedInModel && startsAtSync && endsAtSync
    }

    /// Whether a transition from the engine's point `start` to its point
    /// `end` runs only the engine's code (see ``Footprint/local``).
    static func isLocal(start: UInt8, end: UInt8) -> Bool {
        guard start & engineBit != 0, end & engineBit != 0, start != decidedInModel, end != decidedInModel else { return false }
        if start == decidedAtArrival && end == UInt8(FuzzPoint.operationStart.rawValue) | engineBit { return true }
        if start == UInt8(FuzzPoint.operationEnd.rawValue) | engineBit && end == decidedAtDeparture { return true }
        let (s, e) = (UInt64(start & ~engineBit), UInt64(end & ~engineBit))
        switch (FuzzPoint(rawValue: s), FuzzPoint(rawValue: e)) {
        case (.afterRelease?, .betweenSteps?), (.afterRelease?, .operationEnd?),
             (.operationEnd?, .operationStart?),
             (.operationStart?, .beforeAcquire?), (.betweenSteps?, .beforeAcquire?):
            return true
        default:
            return false
        }
    }

    /// Under the state lock: a model operation of the token's holder touched `key`.
    func touch(_ key: UInt64) {
        guard choices != nil else { return }
        if transitionKeys.count < 4 { transitionKeys.append(WaitKey.primitive(key)) } else { transitionOverflow = true }
    }

    /// Notes where the calling worker is, for its next event that touches a
    /// primitive, a point or a value. Called by the worker that holds the
    /// token; its own slot only.
    func locate(_ worker: Int, file: StaticString?, line: UInt, label: StaticString? = nil) {
        guard worker >= 0 && worker < workers else { return }
        locations[worker] = TraceRing.Location(file: file, line: UInt32(truncatingIfNeeded: line), label: label)
    }

    /// The location noted for `worker`'s next event, taken (each is used once).
    func takeLocation(_ worker: Int) -> TraceRing.Location {
        let location = locations[worker]
        if location.file != nil || location.label != nil { locations[worker] = TraceRing.Location() }
        return location
    }

    /// Under the state lock: notes an event of `worker`. (Inlined: see
    /// ``TraceRing/append(_:_:_:reason:value:at:)``.)
    @inline(__always)
    func note(_ worker: Int, _ kind: TraceEvent.Kind, _ subject: TraceRing.Subject, value: Int? = nil, located: Bool = false) {
        trace.append(worker, kind, subject, value: value, at: located ? takeLocation(worker) : TraceRing.Location())
    }

    /// Under the state lock: the event of scheduling point `point` (the
    /// ones around a strategy's access and a primitive are the model's own
    /// events instead, which name what is taken). Inlined into ``point(_:at:detail:)``,
    /// its one caller at every decision.
    @inline(__always)
    func notePoint(_ worker: Int, _ point: FuzzPoint, detail: Int) {
        switch point {
        case .operationStart:
            if detail >= 0 { currentOperation[worker] = detail }
            note(worker, .operationStart, .operation(currentOperation[worker]))
        case .operationEnd:
            note(worker, .operationEnd, .operation(currentOperation[worker]))
            if let describeState, let line = describeState() {
                trace.describeLast(line)
            }
        case .betweenSteps:
            note(worker, .step, .step(op: currentOperation[worker], step: detail))
        case .user:
            // A point without a label is only where a switch may happen: it
            // shows when one does, as the switch, with its place.
            guard let label = locations[worker].label else { return }
            trace.append(worker, .point, .label(label), at: takeLocation(worker))
        case .beforeAcquire, .afterAcquire, .beforeRelease, .afterRelease:
            break
        }
    }

    /// A value the workload reports (``OpFrame/traceValue(_:_:file:line:)``).
    func noteValue(_ worker: Int, _ label: StaticString, _ value: Int, file: StaticString, line: UInt) {
        lockState()
        defer { unlockState() }
        guard !isReleased, token.pointee.load(ordering: .relaxed) == worker else { return }
        trace.append(worker, .value, .label(label), value: value,
                     at: TraceRing.Location(file: file, line: UInt32(truncatingIfNeeded: line)))
    }

    /// Under the state lock, in ``decide(current:)``: the token leaves
    /// `current` for `chosen`.
    func noteSwitch(from current: Int, spinning: Bool) {
        let reason: TraceRing.SwitchReason
        switch status[current] {
        case .runnable: reason = spinning ? .spinning : .preempted
        case .blocked: reason = .blocked(waitKey[current])
        case .waiting, .timedWaiting: reason = .waiting(waitKey[current])
        case .finished: reason = .finished
        // A queue worker with no block left ends its turn as a worker ends
        // its loop; the main thread between blocks shows no switch.
        case .idle:
            guard isQueueWorker(current) else { return }
            reason = .finished
        case .absent, .escaped: return
        }
        // A preemption at a point the code under test placed shows that place.
        let location = status[current] == .runnable && decidingAt == UInt8(FuzzPoint.user.rawValue)
            ? takeLocation(current) : TraceRing.Location()
        trace.append(current, .switch, .none, reason: reason, at: location)
    }

    /// Under the state lock: the stuck workers' last events, for a deadlock's trace.
    func noteStuck(_ stuck: [Int]) {
        for w in stuck {
            trace.append(w, .stuck, .key(waitKey[w]))
        }
    }

    /// The non-preemptive choice: `current` while it can run, else the
    /// lowest-numbered runnable worker.
    func nonPreemptiveChoice(current: Int) -> Int {
        if current >= 0, status[current] == .runnable { return current }
        return runnableLists(current >= 0 ? current : workers).pointee.workers.first ?? current
    }

    /// The trace so far as the record gives it (takes the state lock).
    func traceEvents() -> [TraceEvent] {
        lockState()
        defer { unlockState() }
        // Under the lock: the ring's events are not copied with it (see ``TraceRing``).
        return traceEventsLocked()
    }

    /// `events` with the main thread's (``mainSlot``) called -1, as a trace
    /// names it (`main`).
    private func namingMainThread(_ events: [TraceEvent]) -> [TraceEvent] {
        guard mainSlot >= 0 else { return events }
        return events.map { event in
            var event = event
            if event.worker == mainSlot { event.worker = -1 }
            return event
        }
    }

    /// ``traceEvents()``, under the state lock.
    func traceEventsLocked() -> [TraceEvent] { namingMainThread(trace.events(names: names ?? TraceNames(operations: []))) }

    /// Preemptions so far (switches away from a worker that could go on).
    var preemptions: Int { trace.preemptions }

    /// What a stall's report carries of the scheduler's: the trace and the
    /// decisions' alternatives.
    struct StallDetail: Sendable {
        var trace: [TraceEvent]
        var traceEventCount: Int
        var preemptions: Int
        var choices: [Choice]?
        /// The names of the queue workers that have served a queue, by index
        /// ("the queue worker of the queue 'x'").
        var names: [Int: String] = [:]
    }

    /// ``StallDetail`` now, under the state lock.
    func stallDetailLocked() -> StallDetail {
        StallDetail(trace: traceEventsLocked(), traceEventCount: trace.count, preemptions: trace.preemptions, choices: choices,
                    names: queueWorkerNames())
    }
}
