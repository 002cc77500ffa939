import CStressSupport
import Foundation

/// Which clock timestamps operations.
public enum ClockSource: String, Sendable, Codable, CaseIterable {
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
public struct TimingSettings: Sendable, Codable, Hashable {
    /// The clock.
    public var clock: ClockSource
    /// Time one operation in `sampleEvery` (on average; the gaps are seeded
    /// random so they cannot fall into step with the workload), recording each
    /// timed operation with a count of `sampleEvery`. 1 times every operation.
    public var sampleEvery: Int

    /// The default: the TSC where it is trustworthy, every operation timed. Every
    /// op's latency is then in the histogram (the max is the real max) and the
    /// two reads cost about 20 ns per op; sampling (`sample: 8`) brings that
    /// under 3 ns for the cheapest operations at the price of estimated percentiles.
    public static let standard = TimingSettings(clock: .auto, sampleEvery: 1)

    /// Settings.
    public init(clock: ClockSource, sampleEvery: Int) {
        self.clock = clock
        self.sampleEvery = Swift.max(1, sampleEvery)
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
    /// once per process, over about 20 ms, outside any timed region).
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
        // Two readings of both clocks 20 ms apart; the ratio is good to about 1e-5.
        let t0 = stress_ticks(), n0 = MonotonicClock.now()
        MonotonicClock.sleep(nanoseconds: 20_000_000)
        let t1 = stress_ticks(), n1 = MonotonicClock.now()
        guard t1 > t0, n1 > n0 else { return nil }
        return TimeSource(source: .tsc, nanosecondsPerTick: Double(n1 - n0) / Double(t1 - t0))
    }()

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
