import CStressSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test-and-test-and-set spin lock over one `Atomic<UInt32>` (0 free, 1 held)
/// that lives in memory which never moves (a ``CacheLineArray`` slot).
///
/// Shared by the `spinlock` strategy and the stripe locks of the `synchronized`
/// model, which stand in for `os_unfair_lock` and the Objective-C runtime's
/// `spinlock_t` on Linux. A waiter spins on a plain load, so the line stays
/// shared in every waiter's cache until the holder's release store, and only
/// then tries the compare-and-swap. Between looks it backs off exponentially
/// (1, 2, 4 … ``maxPauses`` CPU pause hints), after which it calls `sched_yield`
/// on every look, so a waiter whose holder was preempted gives the core back.
/// Not reentrant (a second `lock` on the holding thread spins forever) and not
/// fair (whoever's compare-and-swap lands first wins).
enum SpinLock {
    /// The longest run of pause hints between two looks before backing off to
    /// `sched_yield`.
    static let maxPauses: UInt32 = 64

    /// Takes the lock.
    @inline(__always)
    static func lock(_ word: borrowing Atomic<UInt32>) {
        if word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        lockContended(word)
    }

    /// Releases the lock (the caller must hold it).
    @inline(__always)
    static func unlock(_ word: borrowing Atomic<UInt32>) {
        word.store(0, ordering: .releasing)
    }

    /// The slow path, out of line so the uncontended path stays a single
    /// compare-and-swap.
    @inline(never)
    static func lockContended(_ word: borrowing Atomic<UInt32>) {
        var pauses: UInt32 = 1
        while true {
            while word.load(ordering: .relaxed) != 0 {
                if pauses <= maxPauses {
                    var left = pauses
                    while left > 0 {
                        stress_cpu_relax()
                        left &-= 1
                    }
                    pauses &<<= 1
                } else {
                    sched_yield()
                }
            }
            if word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        }
    }
}
