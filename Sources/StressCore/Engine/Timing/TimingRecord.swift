/// What a worker's timed operations leave behind: their service times and
/// their waits to acquire, in raw clock ticks, and the longest gap between two
/// timed completions (`max_stall`).
///
/// A value with nothing shared in it (the histograms' counts live in memory
/// the worker owns), so that a batch of timed operations can take it as a
/// local, where the compiler keeps its fields in registers across the lock's
/// calls, and hand it back once when the batch ends
/// (``_MeasuredLoop/run(_:kernel:)``). A record per operation is then two
/// bucket increments and a few compares, no other memory traffic.
struct TimingRecord {
    /// Each timed operation's service time: from its start to its end.
    var service = TickHistogram()
    /// Each timed operation's time spent waiting to acquire, summed over its
    /// steps (operations with no guarded step add nothing).
    var acquire = TickHistogram()
    /// When the last timed operation ended (0 before the first).
    private var lastEnd: UInt64 = 0
    /// The longest gap between two timed completions so far.
    private(set) var maxStallTicks: UInt64 = 0

    /// Books one timed operation that took `service` ticks, ended at `end`
    /// and waited `acquire` ticks to acquire (nil when it acquired nothing),
    /// counted `weight` times (the sampling interval it stands for).
    @inline(__always)
    mutating func record(service ticks: UInt64, acquire wait: UInt64?, end: UInt64, weight: UInt64) {
        service.record(ticks, weight: weight)
        if let wait { acquire.record(wait, weight: weight) }
        completed(at: end)
    }

    /// ``record(service:acquire:end:weight:)`` with a weight of 1 and the
    /// histograms' sample counts left alone: the timed batch adds them once,
    /// with ``addSamples(_:acquired:)``, which keeps two counts fewer in
    /// registers across its locks. `acquired` says whether to record `acquire`.
    @inline(__always)
    mutating func recordUncounted(service ticks: UInt64, acquire wait: UInt64, acquired: Bool, end: UInt64) {
        service.recordUncounted(ticks)
        if acquired { acquire.recordUncounted(wait) }
        completed(at: end)
    }

    /// Adds `n` operations recorded with ``recordUncounted(service:acquire:acquired:end:)``
    /// to the histograms' sample counts (the acquire histogram's only when
    /// they `acquired`).
    mutating func addSamples(_ n: Int, acquired: Bool) {
        service.addSamples(n)
        if acquired { acquire.addSamples(n) }
    }

    /// Notes a timed completion at `end`: the gap since the previous one is a
    /// candidate for the longest stall.
    @inline(__always)
    mutating func completed(at end: UInt64) {
        if lastEnd != 0, end &- lastEnd > maxStallTicks { maxStallTicks = end &- lastEnd }
        lastEnd = end
    }

    /// Frees the histograms' memory; the record must not be used afterwards.
    func deallocate() {
        service.deallocate()
        acquire.deallocate()
    }
}
