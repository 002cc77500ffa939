#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Synchronization

/// The same meeting point for task workers: a task waits by suspending, never
/// by holding a pool thread (two roles on a one-thread pool would otherwise
/// wait for each other for ever).
final class AsyncRoundBarrier: Sendable {
    private struct Waiting {
        var continuations: [CheckedContinuation<Int, Never>] = []
    }

    private let parties: Int
    private let state = Mutex(Waiting())

    init(parties: Int) { self.parties = parties }

    /// Suspends until every party has arrived; the last runs `decide` first.
    func arriveAndWait(_ decide: @Sendable () -> Int) async -> Int {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            let release = state.withLockSeen { s -> [CheckedContinuation<Int, Never>]? in
                s.continuations.append(continuation)
                guard s.continuations.count == parties else { return nil }
                defer { s.continuations.removeAll(keepingCapacity: true) }
                return s.continuations
            }
            guard let release else { return }
            let next = decide()
            for c in release { c.resume(returning: next) }
        }
    }
}
