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
/// on a futex until the last arrival wakes it: a worker waiting for a role
/// that is stuck must not take the cores the watchdog and the other workers
/// need. With more parties than CPUs, spinning and yielding only keep the
/// late workers off the cores (256 roles on 2 cores met a dozen times a
/// second), so a worker sleeps at once.
final class RoundBarrier: @unchecked Sendable {
    // @unchecked: the generation and the sleeper count are raw memory every
    // party shares (the futex needs the generation's address); each access
    // is a sequentially consistent atomic, which the futex's wait and wake
    // pair needs (Dekker's order: count, then look; change, then count).
    private let parties: Int
    private let arrived = Atomic<Int>(0)
    private let decision = Atomic<Int>(0)
    /// The meeting's number: the word the futex waits on.
    private let generationWord = CacheLineArray<UInt32>(count: 1)
    /// How many parties sleep on it, or are about to.
    private let sleepersWord = CacheLineArray<UInt64>(count: 1)
    /// Pause hints, then yields, before sleeping.
    private let spins: Int, yields: Int

    init(parties: Int) {
        self.parties = parties
        let usable = Int(stress_usable_cpus())
        let cpus = usable > 0 ? usable : Int(stress_online_cpus())
        (spins, yields) = cpus > 0 && parties > cpus ? (0, 0) : (2_000, 2_000)
    }

    deinit {
        generationWord.deallocate()
        sleepersWord.deallocate()
    }

    private var generation: UnsafeMutablePointer<UInt32> { generationWord[0] }
    private var sleepers: UnsafeMutablePointer<UInt64> { sleepersWord[0] }

    /// Waits until every party has arrived; the last runs `decide` first.
    /// Returns the decision.
    func arriveAndWait(_ decide: () -> Int) -> Int {
        let gen = stress_load32(generation)
        if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
            decision.store(decide(), ordering: .relaxed)
            arrived.store(0, ordering: .relaxed)
            stress_increment32(generation)
            if stress_load64_seq(sleepers) != 0 { stress_futex_wake_all(generation) }
        } else {
            var tries = 0
            while stress_load32(generation) == gen {
                tries &+= 1
                if tries <= spins {
                    stress_cpu_relax()
                } else if tries <= spins + yields {
                    sched_yield()
                } else {
                    // Counted before the futex looks at the generation, so
                    // the last arrival either sees a sleeper and wakes it,
                    // or changed the generation first and the wait returns
                    // at once. The timeout only bounds a wait on a platform
                    // without a futex (a nap there).
                    stress_add64_seq(sleepers, 1)
                    _ = stress_futex_wait(generation, gen, 100_000_000)
                    stress_add64_seq(sleepers, -1)
                }
            }
        }
        return decision.load(ordering: .relaxed)
    }
}
