import CStressSupport
import Synchronization

/// A once-token a trial can see: `dispatch_once`, `pthread_once`, a lazy
/// `static let`, an `if !initialised { ... }` guarded by a lock. The first
/// caller of ``run(file:line:_:)`` runs the body; every other caller waits until it
/// has finished, then returns. Inside a trial the running thread holds the
/// token and the others wait for it (a body that waits for one of them, or
/// that calls ``run(file:line:_:)`` again, is a `deadlock` with its cycle), with fuzz
/// points around the body.
public final class StressOnce: Sendable {
    private enum State { case notStarted, running, done }
    private let state = Mutex(State.notStarted)
    private let finished = ConditionSignal()
    /// Set (releasing) once the body has returned: every later call is one
    /// acquiring load and a branch, inlined into the caller (see ``run(file:line:_:)``),
    /// as `swift_once` and `dispatch_once` are, instead of two trips through
    /// `state`'s lock. At most 1.5 ns a call outside a trial
    /// (docs/own-code.md, Measured).
    @usableFromInline let completed = Atomic<Bool>(false)

    /// A token whose body has not run, optionally named for stall reports
    /// ("the once-token 'config'"). Unnamed, a report calls it by its type
    /// and where it was made ("the StressOnce made at App/Config.swift:5"):
    /// `file` and `line` are the caller's, filled in by the compiler.
    ///
    /// - Parameters:
    ///   - name: How stall reports name it; nil for its type and place.
    ///   - file: The file that makes it (the compiler fills it in).
    ///   - line: The line that makes it (the compiler fills it in).
    public init(name: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        if let name {
            PrimitiveNames.register(Participation.key(self), "the once-token '\(name)'")
        } else {
            PrimitiveNames.register(Participation.key(self), madeAs: "StressOnce", file: file, line: line)
        }
    }

    deinit { PrimitiveNames.unregister(Participation.key(self)) }

    /// Runs `body` if no caller has yet; else waits until the one that did
    /// has finished.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for a controlled trial's trace (the compiler fills it in).
    ///   - line: The caller's line (the compiler fills it in).
    ///   - body: The work to do once.
    @inlinable
    public func run(file: StaticString = #fileID, line: UInt = #line, _ body: () -> Void) {
        if completed.load(ordering: .acquiring) { return }
        runFirst(file: file, line: line, body)
    }

    /// ``run(file:line:_:)`` before the body has finished: run it, or wait for the
    /// caller that does.
    @usableFromInline
    func runFirst(file: StaticString, line: UInt, _ body: () -> Void) {
        Participation.locate(file: file, line: line)
        let first = state.withLockSeen { s -> Bool in
            guard s == .notStarted else { return false }
            s = .running
            return true
        }
        let key = Participation.key(self)
        // Under control the runner holds the token's key in the model while
        // the body runs: a waiter is blocked in the model, and the runner
        // calling run again inside its body waits for itself (a deadlock,
        // reported at once).
        let controlled = Participation.controlled
        if first {
            controlled?.acquire(key)
            Participation.fuzz(.afterAcquire)
            stress_hold(key)
            body()
            stress_unhold(key)
            // `completed` first: a caller that sees `.done` below and returns
            // then finds ``isDone`` true too.
            completed.store(true, ordering: .releasing)
            state.withLockSeen { $0 = .done }
            finished.open()
            // Only now is the token free in the model, and only then comes
            // the scheduling point: freed before `finished` opened, a waiter
            // scheduled at that point found the model's key free and went on
            // to wait for `finished` in the kernel, while the runner that
            // would open it waited for its turn (an escape, and a schedule
            // that depended on how long that wait took).
            controlled?.release(key)
            Participation.fuzz(.beforeRelease)
            return
        }
        guard state.withLockSeen({ $0 }) != .done else { return }
        Participation.fuzz(.beforeAcquire)
        stress_wait_begin(key, UInt64(STRESS_WAIT_ONCE))
        if let controlled, controlled.acquire(key) { controlled.release(key) }
        finished.waitUntilOpen()
        stress_wait_end()
        Participation.fuzz(.afterAcquire)
    }

    /// Whether the body has run to its end.
    public var isDone: Bool { completed.load(ordering: .acquiring) }
}
