/// A controlled trial's events as they happen, kept raw (static strings,
/// keys and indices, no text) in memory reserved up front, so that noting
/// an event does not allocate (but once: the ring of places, at a trial's
/// first event that has a place in the code under test): the text of a
/// ``TraceEvent`` is made only when a failed trial's record asks for it
/// (``TraceRing/events(names:)``).
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

    /// One event, raw and small: 24 bytes of plain values (no reference, no
    /// `String`), so that noting one is three stores, with no retain or
    /// release. (Kept with its subject and reason as enums and its place
    /// inline, an event took 88 bytes, copied through a call at every
    /// decision: about 90 of a decision's 600 instructions, callgrind,
    /// `empty` under `pct`.) What is rarely there, the place in the code
    /// under test and a label, goes to a second ring (``places``), made at
    /// the first event that has one.
    struct Entry {
        /// The operation's index, or the primitive's key (a subject's, or
        /// the switch's reason's).
        var key: UInt64
        /// The step's index, or the value (no event has both: a value is
        /// noted with a label or with nothing as its subject).
        var number: Int
        var worker: Int32
        var kind: TraceEvent.Kind
        var subject: SubjectTag
        var reason: ReasonTag
        /// ``hasValue`` and ``located``.
        var flags: UInt8

        static let hasValue: UInt8 = 1
        /// The event's place and label are in ``TraceRing/places`` at its slot.
        static let located: UInt8 = 2
    }

    /// ``Subject``'s case, without its payload (which the entry holds): a
    /// byte, where the enum with its payloads took 17.
    enum SubjectTag: UInt8 { case none, operation, step, key, label, barrier }
    /// ``SwitchReason``'s case, or none (an event that is not a switch): a
    /// byte, where the optional enum with its key took 9.
    enum ReasonTag: UInt8 { case none, preempted, blocked, waiting, finished, spinning }

    /// One event decoded from its ``Entry`` (and its place), in the terms
    /// the record's text is made from: made only for a failed trial's trace,
    /// so its size does not matter.
    struct Event {
        var worker: Int
        var kind: TraceEvent.Kind
        var subject: Subject
        var reason: SwitchReason?
        var value: Int?
        var place: Location
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
    /// The places and labels of located events (``Entry/located``), in the
    /// slots of ``entries``: made at the first such event (most trials of
    /// the built-in workloads have none), then written only by them. Made
    /// lazily, the pointer is the one part of the ring that a copy would
    /// not share: events are noted only on the ring in place, in the
    /// decision line (``ControlledScheduler/trace``), never on a copy.
    private var places: UnsafeMutablePointer<Location>?
    /// The workload's state after each kept event, where it describes it, in
    /// the slots of ``entries`` (empty until the first description: most
    /// trials have none).
    private var states: [String?] = []
    /// Whether ``states`` has been made (a flag, so that an event without a
    /// description does not read the array's header).
    private var describing = false
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
    func deallocate() {
        entries.deallocate()
        places?.deallocate()
    }

    /// Events held: ``count`` until the ring is full, then ``capacity``.
    private var held: Int { Swift.min(count, capacity) }

    /// Notes an event of `worker`. Inlined, so that at each call the
    /// subject's and the reason's cases are known and only their payloads
    /// are stored.
    @inline(__always)
    mutating func append(_ worker: Int, _ kind: TraceEvent.Kind, _ subject: Subject, reason: SwitchReason? = nil,
                         value: Int? = nil, at place: Location = Location()) {
        guard !sealed else { return }
        var entry = Entry(key: 0, number: value ?? 0, worker: Int32(truncatingIfNeeded: worker), kind: kind, subject: .none,
                          reason: .none, flags: value == nil ? 0 : Entry.hasValue)
        var place = place
        // `key` and `number` are each shared by two meanings: no event has
        // both a reason and a subject, nor both a value and a step.
        assert(reason == nil || kind == .switch, "only a switch has a reason")
        switch subject {
        case .none: break
        case .operation(let op): (entry.subject, entry.key) = (.operation, UInt64(bitPattern: Int64(op)))
        case .step(let op, let step):
            assert(value == nil, "a step's event has no value")
            (entry.subject, entry.key, entry.number) = (.step, UInt64(bitPattern: Int64(op)), step)
        case .key(let key): (entry.subject, entry.key) = (.key, key)
        case .label(let label): (entry.subject, place.label) = (.label, label)
        case .barrier: entry.subject = .barrier
        }
        if reason != nil { assert(entry.subject == .none, "a switch has no subject") }
        switch reason {
        case nil: break
        case .preempted?:
            entry.reason = .preempted
            preemptions &+= 1
        case .blocked(let key)?: (entry.reason, entry.key) = (.blocked, key)
        case .waiting(let key)?: (entry.reason, entry.key) = (.waiting, key)
        case .finished?: entry.reason = .finished
        case .spinning?: entry.reason = .spinning
        }
        // A label is kept only as a label's subject (elsewhere, as before,
        // only the place's file and line show).
        if place.file != nil || entry.subject == .label {
            entry.flags |= Entry.located
            locate(place)
        }
        (entries + next).initialize(to: entry)
        if describing { noteUndescribed() }
        // The slot moves on by a compare, not `count % capacity`: a 64-bit
        // division at every event, tens of cycles, for a capacity that is
        // not known when the code is compiled.
        next &+= 1
        if next == capacity { next = 0 }
        count &+= 1
    }

    /// Keeps the place of the event about to be written at slot ``next``.
    /// Out of line: most events have none, and the inlined ``append`` stays
    /// small at each of its callers.
    @inline(never)
    private mutating func locate(_ place: Location) {
        if places == nil { places = .allocate(capacity: capacity) }
        (places.unsafelyUnwrapped + next).initialize(to: place)
    }

    /// The event about to be written at slot ``next`` has no description
    /// (yet), whatever the slot's last event had. Out of line, as
    /// ``locate(_:)``: most trials describe no state.
    @inline(never)
    private mutating func noteUndescribed() {
        if count < capacity { states.append(nil) } else { states[next] = nil }
    }

    /// Where the next event will be written (for
    /// ``DecisionLine/prefetchHinted()``).
    var nextWrite: UnsafeRawPointer { UnsafeRawPointer(entries + next) }

    /// Notes no more events: the last one is where the trace ends.
    mutating func seal() { sealed = true }

    /// Gives the last event the state's description.
    mutating func describeLast(_ state: String) {
        guard count > 0 else { return }
        if !describing {
            states = Array(repeating: nil, count: held)
            describing = true
        }
        states[(count - 1) % capacity] = state
    }

    /// The event at `slot`, decoded (its place read only where the entry
    /// says it has one: the slot of ``places`` may hold an older event's).
    private func event(at slot: Int) -> Event {
        let e = entries[slot]
        let place = e.flags & Entry.located != 0 ? places.unsafelyUnwrapped[slot] : Location()
        let subject: Subject
        switch e.subject {
        case .none: subject = .none
        case .operation: subject = .operation(Int(Int64(bitPattern: e.key)))
        case .step: subject = .step(op: Int(Int64(bitPattern: e.key)), step: e.number)
        case .key: subject = .key(e.key)
        case .label: subject = place.label.map { .label($0) } ?? .none
        case .barrier: subject = .barrier
        }
        let reason: SwitchReason?
        switch e.reason {
        case .none: reason = nil
        case .preempted: reason = .preempted
        case .blocked: reason = .blocked(e.key)
        case .waiting: reason = .waiting(e.key)
        case .finished: reason = .finished
        case .spinning: reason = .spinning
        }
        return Event(worker: Int(e.worker), kind: e.kind, subject: subject, reason: reason,
                     value: e.flags & Entry.hasValue != 0 ? e.number : nil, place: place)
    }

    /// The kept events' slots in ``entries``, oldest first.
    private var keptSlots: [Int] {
        guard count > capacity else { return Array(0..<held) }
        let start = count % capacity
        return Array(start..<capacity) + Array(0..<start)
    }

    /// The kept events as the record gives them, named by `names`.
    func events(names: TraceNames) -> [TraceEvent] {
        keptSlots.map { names.event(event(at: $0), state: describing ? states[$0] : nil) }
    }
}

/// How a trace's raw events are put into words: operation and step names
/// from the workload, primitives' names from ``PrimitiveNames``.
struct TraceNames {
    /// Each operation's name, and its steps' names.
    let operations: [(name: String, steps: [String])]

    func event(_ e: TraceRing.Event, state: String?) -> TraceEvent {
        var event = TraceEvent(worker: e.worker, kind: e.kind, name: name(e.subject),
                               value: e.value, file: e.place.file.map { "\($0)" },
                               line: e.place.file == nil ? nil : Int(e.place.line), state: state)
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
