/// One event of a controlled trial's interleaving: what one worker did at
/// one scheduling point. A failed controlled trial's record carries the
/// events that led to the failure (`trace` in JSON), in the order they ran,
/// which under control is the only order there was.
///
/// Reading a trace: each worker's events in turn, with a ``Kind/switch``
/// event wherever the token left a worker (``preempted`` when that worker
/// could have gone on, so the switch was the schedule's choice and not the
/// program's).
public struct TraceEvent: Sendable, Codable, Equatable {
    /// What kind of thing happened at a scheduling point: an operation's
    /// start or end, a primitive taken or given back, a wait, a signal, a
    /// labelled point, a reported value, a switch, a worker stuck for good,
    /// or the process's death.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// An operation began; ``TraceEvent/name`` is the operation's.
        case operationStart = "operation-start"
        /// An operation ended.
        case operationEnd = "operation-end"
        /// A step of a multi-step operation ended, and the next one begins.
        case step
        /// A worker asks for a lock, a queue's section or a strategy's
        /// section (``TraceEvent/name`` is the primitive's).
        case acquire
        /// It got it.
        case acquired
        /// It gave it back.
        case release
        /// It waits on a condition or semaphore, or meets the others at a barrier.
        case wait
        /// It signalled a condition (or broadcast), or a semaphore.
        case signal
        /// A point the code under test placed (`fuzzPoint()`), with its label.
        case point
        /// A value the workload reported (``TraceEvent/value``).
        case value
        /// The token left this worker: it was preempted (``TraceEvent/preempted``),
        /// blocked, waits, or finished (``TraceEvent/name`` says which).
        case `switch`
        /// The worker is stuck for good: the last event of a deadlocked
        /// worker, naming what it waits for.
        case stuck
        /// A check of the code under test failed here
        /// (`StressTest.check`): the last event of the trace, as a failed
        /// assert is a program's last.
        case check
        /// The trial's process died here: the last event of a crashed
        /// controlled trial, on the worker that was running, after the last
        /// scheduling point it passed; ``TraceEvent/name`` says how it died
        /// (`SIGILL`, `exit status 1`; `timed out: killed after 2s` for one
        /// its parent killed at its timeout).
        case crash
        /// Its timed wait on a condition or semaphore timed out (under
        /// control: the policy chose so, or nothing else could run), and it
        /// goes on.
        case timedOut = "timed-out"
    }

    /// The worker, from 0; -1 for the main thread.
    public var worker: Int
    /// What kind of event this is (see ``Kind``); ``name`` says what it
    /// happened to.
    public var kind: Kind
    /// The operation's, primitive's or label's name; for a switch, why the
    /// token left (`preempted`, `blocked on the lock 'tally'`, `finished`).
    public var name: String
    /// A value the workload reported, when the event carries one.
    public var value: Int?
    /// The source file of the code under test that made the event, where it
    /// passed one (`Ledger/Ledger.swift`): the primitives' and `fuzzPoint`'s
    /// callers are captured by the compiler.
    public var file: String?
    /// The line in ``file``.
    public var line: Int?
    /// For a switch: true when the worker could have gone on (the schedule
    /// chose another), false when it could not (it blocked, waited or finished).
    public var preempted: Bool?
    /// The state's one-line description at this event, where the workload
    /// or scenario describes its state.
    public var state: String?

    /// An event.
    ///
    /// - Parameters:
    ///   - worker: The worker, from 0 (-1: the main thread).
    ///   - kind: What happened.
    ///   - name: What it happened to.
    ///   - value: A reported value, if any.
    ///   - file: The caller's source file, if known.
    ///   - line: The caller's line, if known.
    ///   - preempted: For a switch, whether the worker could have gone on.
    ///   - state: The state's description at this event, if any.
    public init(worker: Int, kind: Kind, name: String, value: Int? = nil, file: String? = nil, line: Int? = nil,
                preempted: Bool? = nil, state: String? = nil) {
        self.worker = worker
        self.kind = kind
        self.name = name
        self.value = value
        self.file = file
        self.line = line
        self.preempted = preempted
        self.state = state
    }
}
