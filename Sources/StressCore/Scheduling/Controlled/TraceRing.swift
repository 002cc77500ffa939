/// A controlled trial's events as they happen, kept raw (static strings,
/// keys and indices, no text) in memory reserved up front, so that noting
/// an event never allocates: the text of a ``TraceEvent`` is made only when
/// a failed trial's record asks for it (``TraceRing/events(names:)``).
///
/// It keeps the last ``capacity`` events: a failure's cause is near its end
/// (a controlled trial stops at its first violation), and shrinking makes
/// the kept part the whole.
struct TraceRing {
    /// What an event is about, resolved to text only when the record is made.
    enum Subject {
        case none
        /// Operation `op` of the worker's program.
        case operation(Int)
        /// Step `step` of operation `op`.
        case step(op: Int, step: Int)
        /// A primitive or strategy section, by its wait-for key.
        case key(UInt64)
        /// A label the code under test gave.
        case label(StaticString)
        /// A scenario's barrier.
        case barrier
    }

    /// Why the token left a worker.
    enum SwitchReason {
        case preempted
        case blocked(UInt64)
        case waiting(UInt64)
        case finished
        case spinning
    }

    /// One event, raw: plain values only (no reference, no `String`), so
    /// that noting one is a copy of bytes, with no retain or release.
    struct Entry {
        var worker: Int32
        var kind: TraceEvent.Kind
        var subject: Subject
        var reason: SwitchReason?
        var value: Int
        var hasValue: Bool
        var file: StaticString?
        var line: UInt32
    }

    /// Where the code under test said it is, for the worker's next event
    /// that touches a primitive, a point or a value.
    struct Location {
        var file: StaticString?
        var line: UInt32 = 0
        var label: StaticString?
    }

    let capacity: Int
    /// The events, in memory of the ring's own rather than an array: an
    /// array's append writes its count into the array's header, a cache
    /// line that the two CPUs of a hand-off would pass back and forth at
    /// every decision. (``Entry`` holds no references: the memory needs no
    /// deinitializing.) The ring is copied only as a whole part of the
    /// scheduler's decision line (see ``DecisionLine``), which frees the
    /// memory (``deallocate()``) once.
    private var entries: UnsafeMutablePointer<Entry>
    /// The workload's state after each kept event, where it describes it, in
    /// the slots of ``entries`` (empty until the first description: most
    /// trials have none).
    private var states: [String?] = []
    /// Events noted so far (past ``capacity`` the oldest are overwritten).
    private(set) var count = 0
    /// The slot the next event goes to: `count % capacity`, kept as it moves.
    private var next = 0
    /// Switches away from a worker that could have gone on, so far.
    private(set) var preemptions = 0
    /// Set by a failed check (``seal()``): the trace ends at it, as a
    /// program ends at a failed assert, and what the round does after is left out.
    private(set) var sealed = false

    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        entries = .allocate(capacity: self.capacity)
    }

    /// Frees the events' memory; the ring is not used after.
    func deallocate() { entries.deallocate() }

    /// Events held: ``count`` until the ring is full, then ``capacity``.
    private var held: Int { Swift.min(count, capacity) }

    mutating func append(_ entry: Entry) {
        guard !sealed else { return }
        if count < capacity {
            (entries + next).initialize(to: entry)
            if !states.isEmpty { states.append(nil) }
        } else {
            entries[next] = entry
            if !states.isEmpty { states[next] = nil }
        }
        // The slot moves on by a compare, not `count % capacity`: a 64-bit
        // division at every event, tens of cycles, for a capacity that is
        // not known when the code is compiled.
        next &+= 1
        if next == capacity { next = 0 }
        count &+= 1
        if entry.kind == .switch, case .preempted? = entry.reason { preemptions &+= 1 }
    }

    /// Where the next event will be written (for
    /// ``DecisionLine/prefetchHinted()``).
    var nextWrite: UnsafeRawPointer { UnsafeRawPointer(entries + next) }

    /// Notes no more events: the last one is where the trace ends.
    mutating func seal() { sealed = true }

    /// Gives the last event the state's description.
    mutating func describeLast(_ state: String) {
        guard count > 0 else { return }
        if states.isEmpty { states = Array(repeating: nil, count: held) }
        states[(count - 1) % capacity] = state
    }

    /// The kept events' slots in ``entries``, oldest first.
    private var keptSlots: [Int] {
        guard count > capacity else { return Array(0..<held) }
        let start = count % capacity
        return Array(start..<capacity) + Array(0..<start)
    }

    /// The kept events as the record gives them, named by `names`.
    func events(names: TraceNames) -> [TraceEvent] {
        keptSlots.map { names.event(entries[$0], state: states.isEmpty ? nil : states[$0]) }
    }
}

/// How a trace's raw events are put into words: operation and step names
/// from the workload, primitives' names from ``PrimitiveNames``.
struct TraceNames {
    /// Each operation's name, and its steps' names.
    let operations: [(name: String, steps: [String])]

    func event(_ e: TraceRing.Entry, state: String?) -> TraceEvent {
        var event = TraceEvent(worker: Int(e.worker), kind: e.kind, name: name(e.subject),
                               value: e.hasValue ? e.value : nil, file: e.file.map { "\($0)" },
                               line: e.file == nil ? nil : Int(e.line), state: state)
        if let reason = e.reason {
            switch reason {
            case .preempted:
                event.name = "preempted"
                event.preempted = true
            case .blocked(let key):
                event.name = "blocked on " + PrimitiveNames.describe(key)
                event.preempted = false
            case .waiting(let key):
                event.name = key == ControlledScheduler.rolesBarrier || key == ControlledScheduler.arbitrationBarrier
                    ? "waits at the round's barrier" : "waits on " + PrimitiveNames.describeCondition(key)
                event.preempted = false
            case .finished:
                event.name = "finished"
                event.preempted = false
            case .spinning:
                event.name = "spinning (no operation ended for \(ControlledScheduler.spinLimit) points)"
                event.preempted = true
            }
        }
        return event
    }

    func name(_ subject: TraceRing.Subject) -> String {
        switch subject {
        case .none: return ""
        case .operation(let op): return operations.indices.contains(op) ? operations[op].name : "operation \(op)"
        case .step(let op, let step):
            guard operations.indices.contains(op), operations[op].steps.indices.contains(step) else { return "step \(step)" }
            return operations[op].name + "/" + operations[op].steps[step]
        case .key(let key): return PrimitiveNames.describe(key)
        case .label(let label): return "\(label)"
        case .barrier: return "the round's barrier"
        }
    }
}
