#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Synchronization

/// The meeting point of a scenario's workers between strides of rounds, for
/// worker threads. Reusable: each meeting is one generation. The last worker
/// to arrive runs the decision (whether to go on, and with how many rounds)
/// while the others wait, then releases them all with it, so every worker
/// leaves the round loop at the same round.
///
/// Waiting spins briefly with CPU pause hints (a meeting of two roles on two
/// cores takes a fraction of a microsecond), then yields the CPU, then sleeps
/// in short naps: a worker waiting for a role that is stuck must not take the
/// cores the watchdog and the other workers need.
final class RoundBarrier: Sendable {
    private let parties: Int
    private let arrived = Atomic<Int>(0)
    private let generation = Atomic<Int>(0)
    private let decision = Atomic<Int>(0)

    init(parties: Int) { self.parties = parties }

    /// Waits until every party has arrived; the last runs `decide` first.
    /// Returns the decision.
    func arriveAndWait(_ decide: () -> Int) -> Int {
        let gen = generation.load(ordering: .acquiring)
        if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
            decision.store(decide(), ordering: .relaxed)
            arrived.store(0, ordering: .relaxed)
            generation.store(gen &+ 1, ordering: .releasing)
        } else {
            var spins = 0
            while generation.load(ordering: .acquiring) == gen {
                spins &+= 1
                if spins < 2_000 {
                    stress_cpu_relax()
                } else if spins < 4_000 {
                    sched_yield()
                } else {
                    MonotonicClock.sleep(nanoseconds: 50_000)
                }
            }
        }
        return decision.load(ordering: .relaxed)
    }
}

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
            let release = state.withLock { s -> [CheckedContinuation<Int, Never>]? in
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
