import Foundation
@testable import StressKit

/// Result records made up for tests of the gate, so statistics tests never
/// depend on how fast this machine is today.
enum Synthetic {
    /// One trial with the given throughput and every latency sample at `latencyNs`;
    /// with `clockStepNs`, samples spread over 3 clock steps either side of it
    /// (symmetrically, so the median stays `latencyNs`), as a clock that ticks
    /// in steps records them.
    static func trial(
        experiment: String = "e", strategy: String = "mutex", threads: Int = 2, repetition: Int, index: Int? = nil,
        opsPerSecond: Double, latencyNs: UInt64, clockStepNs: UInt64? = nil, outcome: TrialOutcome = .passed
    ) -> TrialResult {
        let spec = TrialSpec(
            id: "\(experiment)/\(strategy)/t\(threads)/r\(repetition)", index: index ?? repetition, plan: "synthetic",
            experiment: experiment, workload: "counter", parameters: WorkloadParameters(["read_ratio": .number(0)]),
            strategy: strategy, threads: threads, repetition: repetition, seed: UInt64(repetition + 1),
            warmupNs: 0, durationNs: 100_000_000, opsPerThread: nil, timeoutNs: 10_000_000_000)
        var histogram = LatencyHistogram()
        if let step = clockStepNs {
            for (k, count) in zip(-3...3, [5, 10, 20, 30, 20, 10, 5] as [UInt64]) {
                histogram.record(UInt64(Int(latencyNs) + k * Int(step)), count: count)
            }
        } else {
            histogram.record(latencyNs, count: 100)
        }
        let measurement = TrialMeasurement(
            elapsedNanoseconds: 100_000_000, totalOps: Int(opsPerSecond / 10), opsPerSecond: opsPerSecond, perThreadOps: [],
            operations: [:], warmupOps: 0, latencyKind: "service-time", latency: histogram.summary(),
            histogram: histogram.buckets, workloadMetrics: [:])
        return TrialResult(trial: spec, outcome: outcome, measurement: measurement, violations: .none, failure: nil,
                           environment: EnvironmentInfo.current)
    }

    /// The repetitions of one cell: one trial per throughput.
    static func cell(throughputs: [Double], latencyNs: [UInt64], strategy: String = "mutex", threads: Int = 2,
                     clockStepNs: UInt64? = nil) -> [TrialResult] {
        throughputs.indices.map {
            trial(strategy: strategy, threads: threads, repetition: $0, opsPerSecond: throughputs[$0], latencyNs: latencyNs[$0],
                  clockStepNs: clockStepNs)
        }
    }

    /// The repetitions of one cell measured on p50 only: throughput 1000 each.
    static func latencyCell(_ latencyNs: [UInt64], strategy: String = "mutex", threads: Int = 2,
                            clockStepNs: UInt64? = nil) -> [TrialResult] {
        cell(throughputs: latencyNs.map { _ in 1000 }, latencyNs: latencyNs, strategy: strategy, threads: threads, clockStepNs: clockStepNs)
    }

    /// A report of `trials`.
    static func report(_ trials: [TrialResult], plan: String = "synthetic") -> RunReport {
        RunReport(plan: plan, planFile: "\(plan).yaml", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                  finishedAt: Date(timeIntervalSince1970: 1_700_000_100), trials: trials)
    }
}
