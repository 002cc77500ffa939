/// The access a step asks for: ``Step/Access``.
public enum StepAccess: Sendable, Equatable {
    /// No critical section: work done outside any lock (argument choice, a
    /// decision between two critical sections).
    case unguarded
    /// Shared (reader) access to resource `n`.
    case read(Int)
    /// Exclusive (writer) access to resource `n`.
    case write(Int)
    /// Exclusive access to `outer`, then, while still holding it, to `inner`:
    /// a transaction inside a transaction when both are the same resource (it
    /// deadlocks under a non-recursive lock), a lock-order pattern when they differ.
    case nestedWrite(outer: Int, inner: Int)
    /// Exclusive access to each resource of `path` in turn, each taken while
    /// holding the ones before it: nesting three or more levels deep (two is
    /// ``nestedWrite(outer:inner:)``).
    case nestedWrites(NestingPath)
    /// Exclusive access to `n` that the step takes and keeps: later steps of
    /// the operation run holding it until a ``release(_:)`` step gives it
    /// back (hand-over-hand locking, a lock held across a decision). Needs a
    /// strategy whose access is a lock and an unlock (``HoldingStrategy``).
    case hold(Int)
    /// Gives back resource `n`, which an earlier ``hold(_:)`` step of the
    /// operation took; the body runs still holding it.
    case release(Int)
    /// Exclusive access to `n` once the step's predicate holds there: the
    /// worker takes it, checks the predicate, and while it is false waits for
    /// another worker's exclusive access to `n` to end, then checks again; the
    /// body runs holding it with the predicate true. Waiting longer than
    /// `timeoutNs` in all is a violation.
    case waitUntil(Int, timeoutNs: Int)
    /// An `async` body, outside any critical section of the strategy: it awaits
    /// the code under test (a team's actors, tasks, continuations, streams).
    /// The worker is then a task, and under the harness executor every job of
    /// the body is a point where the harness perturbs the schedule.
    case awaiting

    /// Whether the step needs a strategy that can hold a resource across steps.
    var holdsAcrossSteps: Bool {
        switch self {
        case .hold, .release: return true
        default: return false
        }
    }

    /// The resources the step uses.
    var resources: [Int] {
        switch self {
        case .unguarded, .awaiting: return []
        case .read(let r), .write(let r), .hold(let r), .release(let r), .waitUntil(let r, _): return [r]
        case .nestedWrite(let outer, let inner): return [outer, inner]
        case .nestedWrites(let path): return path.resources
        }
    }

    /// Whether the step waits for a predicate.
    var waits: Bool {
        if case .waitUntil = self { return true }
        return false
    }

    /// Whether the step is one of the kinds the engine runs only in its
    /// general loop (not in the loops compiled for speed).
    var isExtended: Bool {
        switch self {
        case .nestedWrites, .hold, .release, .waitUntil: return true
        default: return false
        }
    }
}
