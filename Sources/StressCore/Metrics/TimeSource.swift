import CStressSupport
import Foundation

/// Which clock timestamps operations.
package enum ClockSource: String, Sendable, Codable, CaseIterable {
    /// `clock_gettime(CLOCK_MONOTONIC)`: about 25 ns a read on the reference machine.
    case monotonic
    /// The CPU's invariant time-stamp counter, calibrated against the monotonic
    /// clock: about 10 ns a read. Used only where the CPU says the counter ticks
    /// at a constant rate in every power state (`constant_tsc` and `nonstop_tsc`).
    case tsc
    /// `tsc` where it is trustworthy, else `monotonic`.
    case auto
}

/// How a trial times its operations.
package struct TimingSettings: Sendable, Codable, Hashable {
    /// Which operations are timed.
    public enum Sampling: Sendable, Hashable {
        /// One operation in `n` on average (seeded random gaps, so the timed ops
        /// cannot fall into step with the workload), each recorded with a count
        /// of `n`. `every(1)` times every operation.
        case every(Int)
        /// Each worker first measures what timing costs its operations (a few
        /// rounds of timed and untimed ones: ``TimingSettings/autoProbeOps``
        /// timed in all), then picks its own `n` so that timing takes at most
        /// ``TimingSettings/autoClockShare`` of the operations' time (1 for
        /// operations of about 1.5 µs or more, so their histogram holds every
        /// operation and the true max: see `AutoSamplingProbe.slowOperationNs`).
        case auto
    }

    /// The clock.
    public var clock: ClockSource
    /// Which operations are timed.
    public var sampling: Sampling

    /// The default: the TSC where it is trustworthy, `auto` sampling. Timing an
    /// operation costs 30 to 55 ns on the reference machine (a lock's takes
    /// three clock reads: start, acquired, end; and the recording), several
    /// times an uncontended lock: timing every operation would cut the
    /// throughput of the cheapest strategies to a fifth, so for them `auto` times
    /// a random sample; operations of about 1.5 µs or more are all timed.
    public static let standard = TimingSettings(clock: .auto, sampling: .auto)

    /// Operations a worker times while `auto` measures what timing costs (it
    /// also runs twice as many untimed among them), before it picks its interval.
    public static let autoProbeOps = AutoSamplingProbe.rounds * AutoSamplingProbe.timedPerRound
    /// The largest share of the operations' time `auto` lets timing take (its
    /// clock reads, recording and bookkeeping, as measured). 1%: with the
    /// kernel loop an uncontended lock's harness costs a few percent at most,
    /// and at 5% (the share until 2026-11-24) timing alone was the largest part
    /// of that. The interval it gives the cheapest operations (500 to 900 for
    /// a 1-thread lock) still times hundreds of thousands a second per worker.
    public static let autoClockShare = 0.01
    /// The longest interval `auto` picks: even the cheapest operations keep
    /// thousands of samples a second per worker.
    public static let autoMaxInterval = 1024

    /// Settings.
    public init(clock: ClockSource, sampling: Sampling) {
        self.clock = clock
        if case .every(let n) = sampling { self.sampling = .every(Swift.max(1, n)) } else { self.sampling = sampling }
    }

    /// Settings with a fixed interval (`sampleEvery` 1 times every operation).
    public init(clock: ClockSource, sampleEvery: Int) {
        self.init(clock: clock, sampling: .every(sampleEvery))
    }

    /// The interval `auto` picks when an untimed operation takes `untimedNs`
    /// and a timed one `timedNs` (each a whole loop iteration, as a worker
    /// measures them: `AutoSamplingProbe`): the smallest `n` for which the
    /// difference, paid once every `n` operations, stays within
    /// ``autoClockShare`` of the operations' time. 1 when timing costs nothing
    /// measurable.
    public static func autoInterval(untimedNs: Double, timedNs: Double) -> Int {
        guard untimedNs.isFinite, timedNs.isFinite else { return autoMaxInterval }
        let cost = timedNs - untimedNs
        guard cost > 0 else { return 1 }
        guard untimedNs > 0 else { return autoMaxInterval }
        let n = (cost / (autoClockShare * untimedNs)).rounded(.up)
        return n >= Double(autoMaxInterval) ? autoMaxInterval : Swift.max(1, Int(n))
    }

    private enum CodingKeys: String, CodingKey { case clock, sampleEvery }

    /// Decodes `{"clock": ..., "sampleEvery": n | "auto"}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let clock = try c.decode(ClockSource.self, forKey: .clock)
        if let n = try? c.decode(Int.self, forKey: .sampleEvery) {
            self.init(clock: clock, sampling: .every(n))
        } else if try c.decode(String.self, forKey: .sampleEvery) == "auto" {
            self.init(clock: clock, sampling: .auto)
        } else {
            throw DecodingError.dataCorruptedError(forKey: .sampleEvery, in: c, debugDescription: "expected a whole number or \"auto\"")
        }
    }

    /// Encodes `sampleEvery` as the interval, or `"auto"`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(clock, forKey: .clock)
        switch sampling {
        case .every(let n): try c.encode(n, forKey: .sampleEvery)
        case .auto: try c.encode("auto", forKey: .sampleEvery)
        }
    }
}

/// A calibrated clock: raw readings and their conversion to nanoseconds.
struct TimeSource: Sendable {
    let source: ClockSource
    /// Nanoseconds per raw tick (1 for the monotonic clock).
    let nanosecondsPerTick: Double

    /// A raw reading.
    @inline(__always)
    func now() -> UInt64 {
        source == .tsc ? stress_ticks() : MonotonicClock.now()
    }

    /// Raw ticks to nanoseconds.
    @inline(__always)
    func nanoseconds(_ ticks: UInt64) -> UInt64 {
        source == .tsc ? UInt64(Double(ticks) * nanosecondsPerTick) : ticks
    }

    static let monotonic = TimeSource(source: .monotonic, nanosecondsPerTick: 1)

    /// The source `requested` resolves to on this machine (calibrating the TSC
    /// once per process, over about 5 ms, outside any timed region).
    static func resolve(_ requested: ClockSource) -> TimeSource {
        switch requested {
        case .monotonic: return .monotonic
        case .tsc, .auto:
            guard let calibrated = calibratedTSC else { return .monotonic }
            return calibrated
        }
    }

    /// Whether the CPU's counter is invariant, and its rate.
    static let calibratedTSC: TimeSource? = {
        #if arch(x86_64)
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
              flags.contains(" constant_tsc"), flags.contains(" nonstop_tsc") else { return nil }
        #elseif arch(arm64)
        // The generic timer is architecturally constant-rate.
        #else
        return nil
        #endif
        // Two readings of both clocks 5 ms apart. Each pairs a monotonic
        // reading with the middle of the two counter readings around it, and
        // is the tightest of a few tries, so a preemption inside one cannot
        // skew it: the ratio is good to about 1e-5, far below the histograms'
        // three digits. (It was 20 ms of sleep; every trial process pays it
        // once, over a thousand times in a CI run of the shipped plans.)
        guard let (t0, n0) = tightestPairedReading() else { return nil }
        MonotonicClock.sleep(nanoseconds: 5_000_000)
        guard let (t1, n1) = tightestPairedReading(), t1 > t0, n1 > n0 else { return nil }
        return TimeSource(source: .tsc, nanosecondsPerTick: Double(n1 - n0) / Double(t1 - t0))
    }()

    /// A monotonic reading and the counter's reading at the same moment: the
    /// middle of the counter readings just before and after it, from the try
    /// of five whose two counter readings lie closest together. Nil when the
    /// counter ran backwards in every try (it is then no clock to trust).
    private static func tightestPairedReading() -> (ticks: UInt64, nanoseconds: UInt64)? {
        var best: (ticks: UInt64, nanoseconds: UInt64, gap: UInt64) = (0, 0, .max)
        for _ in 0..<5 {
            let before = stress_ticks()
            let now = MonotonicClock.now()
            let after = stress_ticks()
            guard after >= before else { continue }
            if after - before < best.gap { best = (before + (after - before) / 2, now, after - before) }
        }
        return best.gap == .max ? nil : (best.ticks, best.nanoseconds)
    }

    /// The cost of one reading, measured once per process and clock.
    var readCost: Double { source == .tsc ? Self.tscReadCost : Self.monotonicReadCost }
    private static let tscReadCost = calibratedTSC?.readCostNs() ?? 0
    private static let monotonicReadCost = TimeSource.monotonic.readCostNs()

    /// The measured cost of one reading, in nanoseconds (median of a few runs).
    func readCostNs() -> Double {
        let n = 20_000
        var costs: [Double] = []
        for _ in 0..<5 {
            let a = MonotonicClock.now()
            var sink: UInt64 = 0
            for _ in 0..<n { sink &+= now() }
            let b = MonotonicClock.now()
            if sink == 42 { costs.append(0) }
            costs.append(Double(b - a) / Double(n))
        }
        return costs.sorted()[costs.count / 2]
    }
}
