#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The async counterpart for task workers: tasks `await arrive()`; the
/// coordinating thread waits until all have arrived, then releases them together.
final class TaskGate: Sendable {
    private struct Waiting {
        var continuations: [CheckedContinuation<Void, Never>] = []
        var released = false
    }

    private let parties: Int
    private let state = Mutex(Waiting())
    private let allArrived = ConditionSignal()

    init(parties: Int) { self.parties = parties }

    /// Suspends the calling task until ``release()``.
    func arrive() async {
        await withCheckedContinuation { continuation in
            let (resumeNow, everyone) = state.withLockSeen { s -> (Bool, Bool) in
                if s.released { return (true, false) }
                s.continuations.append(continuation)
                return (false, s.continuations.count == parties)
            }
            if resumeNow { continuation.resume() }
            if everyone { allArrived.open() }
        }
    }

    /// Blocks the calling thread until every task has arrived.
    func waitForAll() { allArrived.waitUntilOpen() }

    /// Whether every task has arrived (without waiting).
    var hasAllArrived: Bool { state.withLockSeen { $0.released || $0.continuations.count == parties } }

    /// Lets every waiting task go.
    func release() {
        let waiting = state.withLockSeen { s -> [CheckedContinuation<Void, Never>] in
            s.released = true
            defer { s.continuations = [] }
            return s.continuations
        }
        for c in waiting { c.resume() }
    }
}
