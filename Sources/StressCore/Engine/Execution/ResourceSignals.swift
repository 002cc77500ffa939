import CStressSupport

/// The engine's own signal per resource, for ``StepAccess/waitUntil(_:timeoutNs:)``
/// steps under strategies without a condition: a generation count that every
/// end of an exclusive access bumps while someone waits, and a futex to wait
/// on it. Not pthread (a preloaded interposer would take it for the code
/// under test's); no lock; only programs with such steps have one.
final class ResourceSignals: @unchecked Sendable {
    // @unchecked: raw memory, every access atomic.
    private struct Slot {
        var generation: UInt32
        var padding: UInt32
        var waiters: UInt64
    }

    private let slots: CacheLineArray<Slot>

    init(resources: Int) {
        slots = CacheLineArray(count: resources)
    }

    deinit { slots.deallocate() }

    private func generationWord(_ r: Int) -> UnsafeMutablePointer<UInt32> {
        UnsafeMutableRawPointer(slots[r]).assumingMemoryBound(to: UInt32.self)
    }

    private func waitersWord(_ r: Int) -> UnsafeMutablePointer<UInt64> {
        (UnsafeMutableRawPointer(slots[r]) + MemoryLayout<Slot>.offset(of: \Slot.waiters)!).assumingMemoryBound(to: UInt64.self)
    }

    /// A worker starts waiting for `r` (before its first look).
    func beginWaiting(_ r: Int) { stress_add64_seq(waitersWord(r), 1) }
    /// It stopped.
    func endWaiting(_ r: Int) { stress_add64_seq(waitersWord(r), -1) }
    /// The generation now (read before a look, waited on after it).
    func generation(_ r: Int) -> UInt32 { stress_load32(generationWord(r)) }

    /// Waits until the generation of `r` is no longer `from`, or `deadline`.
    func wait(_ r: Int, from: UInt32, until deadline: UInt64) {
        let word = generationWord(r)
        while stress_load32(word) == from {
            let now = MonotonicClock.now()
            guard now < deadline else { return }
            _ = stress_futex_wait(word, from, Swift.min(deadline - now, 50_000_000))
        }
    }

    /// An exclusive access to `r` ended: wakes its waiters, if it has any.
    @inline(__always)
    func changed(_ r: Int) {
        guard stress_load64_seq(waitersWord(r)) != 0 else { return }
        let word = generationWord(r)
        stress_increment32(word)
        stress_futex_wake_all(word)
    }
}
