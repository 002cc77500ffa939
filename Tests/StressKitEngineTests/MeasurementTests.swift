import Foundation
@testable import StressKit
@testable import StressCore
@testable import StressRunner
import StressKitTestSupport
import XCTest

/// What each figure means, shown on real runs: timing modes, acquire waits,
/// stalls, fairness, resources, paced load and allocator metrics.
final class MeasurementTests: XCTestCase {
    func testEveryOpTimedWithSampleOneAndTheRecordSaysHow() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: bank
                strategies: [pthread-mutex]
                threads: 2
                ops: 20k
                timing: { sample: 1 }
            """)
        let m = try XCTUnwrap(report.trials[0].measurement)
        XCTAssertEqual(m.latency?.count, 40_000)
        let timing = try XCTUnwrap(m.timing)
        XCTAssertEqual(timing.sampleEvery, 1)
        XCTAssertEqual(timing.sampling, "fixed")
        XCTAssertEqual(timing.timedOps, 40_000)
        XCTAssertEqual(timing.clock, TimeSource.calibratedTSC == nil ? "monotonic" : "tsc")
        XCTAssertGreaterThan(timing.clockReadNs, 0)
        // Every op of bank has one guarded step: one acquire wait per timed op.
        XCTAssertEqual(m.acquireLatency?.count, 40_000)
        XCTAssertEqual(m.longestGapNanoseconds?.count, 2)
        XCTAssertEqual(m.fairness?.jainIndex ?? 0, 1, accuracy: 1e-9, "ops mode: both workers did 20k")
        XCTAssertNil(m.fairness?.starvedThread)
        let r = try XCTUnwrap(m.resources)
        XCTAssertGreaterThan(r.peakRSSBytes, 1_000_000)
        XCTAssertGreaterThan(r.userCpuNs + r.systemCpuNs, 0)
        XCTAssertNotNil(r.cpuNsPerOp)
        XCTAssertGreaterThan(try XCTUnwrap(r.workerCpuNs, "thread workers: their own clocks"), 0)
        XCTAssertNotNil(r.workerCpuNsPerOp)
        XCTAssertEqual(PairedMetric.workerCpuNsPerOp.sample(of: report.trials[0]), r.workerCpuNsPerOp)
    }

    /// Task workers have no thread of their own: no worker CPU figure, and
    /// the paired metric falls back to the process's CPU time.
    func testTaskWorkersHaveNoWorkerCPUFigure() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                strategies: [actor]
                threads: 2
                ops: 20k
            """)
        let r = try XCTUnwrap(report.trials[0].measurement?.resources)
        XCTAssertNil(r.workerCpuNs)
        XCTAssertNil(r.workerCpuNsPerOp)
        let process = try XCTUnwrap(r.cpuNsPerOp)
        XCTAssertEqual(PairedMetric.workerCpuNsPerOp.sample(of: report.trials[0]), process > 0 ? process : nil)
    }

    /// The default, `auto`: each worker measures what timing costs (rounds of
    /// timed and untimed operations), then picks an interval; the record says
    /// so and how many were timed.
    func testAutoSamplingTimesTheFirstOperationsThenPicksAnInterval() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                strategies: [pthread-mutex]
                threads: 2
                ops: 50k
            """)
        let m = try XCTUnwrap(report.trials[0].measurement)
        let timing = try XCTUnwrap(m.timing)
        XCTAssertEqual(timing.sampling, "auto")
        let timed = try XCTUnwrap(timing.timedOps)
        XCTAssertGreaterThanOrEqual(timed, 2 * TimingSettings.autoProbeOps, "each worker's probe times its rounds' operations")
        XCTAssertLessThanOrEqual(timed, 100_000)
        XCTAssertGreaterThanOrEqual(timing.sampleEvery, 1)
        XCTAssertLessThanOrEqual(timing.sampleEvery, TimingSettings.autoMaxInterval)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(m.latency?.count), timed, "each timed op counts at least once")
    }

    /// Operations slow against any timing cost are all timed under `auto`: the
    /// probe sees it in its first round and stops there, with no untimed
    /// stretch, so the histogram holds every operation and the true max.
    func testAutoSamplingTimesEverySlowOperation() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: _busywork
                parameters: { work: 50000 }
                strategies: [mutex]
                threads: 1
                ops: 300
                warmup: 0s
            """)
        let m = try XCTUnwrap(report.trials[0].measurement)
        let timing = try XCTUnwrap(m.timing)
        XCTAssertEqual(timing.sampling, "auto")
        XCTAssertEqual(timing.timedOps, 300)
        XCTAssertEqual(timing.sampleEvery, 1)
        XCTAssertEqual(try XCTUnwrap(m.latency?.count), 300)
    }

    /// The interval `auto` picks: what timing adds within 1% of the operations' time.
    func testAutoIntervalKeepsTimingWithinItsShare() {
        // Timing adds 22 ns; 5% of 7 ns is 0.35 ns: 22 / 0.35 = 62.9.
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 7, timedNs: 29), 315, "22 ns is 1% of 315 × 7 ns")
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 2200, timedNs: 2222), 1, "22 ns is 1% of 2200 ns")
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 2201, timedNs: 2223), 1)
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 2199, timedNs: 2221), 2)
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 100_000, timedNs: 100_050), 1)
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 0.01, timedNs: 40), TimingSettings.autoMaxInterval)
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 0, timedNs: 40), TimingSettings.autoMaxInterval)
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: 50, timedNs: 49), 1, "timing that costs nothing measurable: time every op")
        XCTAssertEqual(TimingSettings.autoInterval(untimedNs: .nan, timedNs: 40), TimingSettings.autoMaxInterval)
    }

    /// The probe behind `auto`: rounds of timed then untimed operations, whose
    /// costs it takes from the timed ones' start readings; the medians pick the
    /// interval, so one preempted round changes nothing.
    func testAutoSamplingProbeMeasuresTimedAndUntimedOperations() {
        // A timed op takes 50 ticks and an untimed one 10 (1 ns a tick): timing
        // adds 40 ns, 1% of 10 ns is 0.1 ns, so the interval is 400.
        func run(preemptedRound: Int?, preemptedTimedOp: Int? = nil) -> [AutoSamplingProbe.Next] {
            var probe = AutoSamplingProbe()
            var now: UInt64 = 1_000
            var steps: [AutoSamplingProbe.Next] = []
            for round in 0... {
                var next = AutoSamplingProbe.Next.time
                while next == .time {
                    next = probe.add(start: now, nanosecondsPerTick: 1)
                    steps.append(next)
                    now += 50
                    // A 1 ms preemption of one timed op (its round's figure
                    // is an outlier, and in round 0 the op looks slow).
                    if steps.count == preemptedTimedOp { now += 1_000_000 }
                }
                guard case .skip(let n) = next else { return steps }
                XCTAssertEqual(n, AutoSamplingProbe.untimedPerRound)
                now += UInt64(n) * 10
                // A 1 ms preemption in one untimed stretch.
                if round == preemptedRound { now += 1_000_000 }
            }
            return steps
        }
        for (preempted, timedOp) in [(nil, nil), (0, nil), (3, nil), (nil, 5), (nil, 40)] {
            let steps = run(preemptedRound: preempted, preemptedTimedOp: timedOp)
            XCTAssertEqual(steps.last, .interval(400), "preempted round \(String(describing: preempted)), timed op \(String(describing: timedOp))")
            XCTAssertEqual(steps.filter { $0 == .time }.count, AutoSamplingProbe.rounds * (AutoSamplingProbe.timedPerRound - 1))
            XCTAssertEqual(steps.count, TimingSettings.autoProbeOps + 1, "every probe op timed, and the first one after it")
        }
        // Slow operations: all timed, decided after the first round.
        var probe = AutoSamplingProbe()
        var next = AutoSamplingProbe.Next.time
        var now: UInt64 = 0
        var timed = 0
        while next == .time {
            next = probe.add(start: now, nanosecondsPerTick: 1)
            now += 2_000
            timed += 1
        }
        XCTAssertEqual(next, .interval(1))
        XCTAssertEqual(timed, AutoSamplingProbe.timedPerRound)
    }

    func testSampledTimingCountsEachSampleForItsShare() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: counter
                strategies: [mutex]
                threads: 1
                ops: 200k
                timing: { clock: monotonic, sample: 16 }
            """)
        let m = try XCTUnwrap(report.trials[0].measurement)
        XCTAssertEqual(m.timing?.clock, "monotonic")
        XCTAssertEqual(m.timing?.sampleEvery, 16)
        // About one op in 16 is timed (seeded gaps, mean 16), each counted 16 times.
        let count = Double(try XCTUnwrap(m.latency?.count))
        XCTAssertEqual(count / 200_000, 1, accuracy: 0.05)
        XCTAssertEqual(m.latency!.count % 16, 0)
    }

    func testFairnessFigures() {
        let even = Fairness(perThreadOps: [100, 100, 100, 100])!
        XCTAssertEqual(even.jainIndex, 1)
        XCTAssertEqual(even.coefficientOfVariation, 0)
        let starved = Fairness(perThreadOps: [1000, 1000, 1000, 5])!
        XCTAssertEqual(starved.starvedThread, 3)
        XCTAssertEqual(starved.jainIndex, 3005.0 * 3005 / (4 * (3e6 + 25)), accuracy: 1e-12)
        let hog = Fairness(perThreadOps: [10, 0])!
        XCTAssertEqual(hog.jainIndex, 0.5, "one of two workers did everything: 1/n")
        XCTAssertNil(Fairness(perThreadOps: [7]), "one worker has no fairness")
    }

    func testPacedLoadNeverSkipsAndSaysWhenItFellBehind() throws {
        let report = try TestSupport.runInProcess("""
            experiments:
              - workload: bank
                strategies: [pthread-mutex]
                threads: 2
                ops: 5000
                warmup: 0s
                load: { mode: paced, rate: 1G }
            """)
        let m = try XCTUnwrap(report.trials[0].measurement)
        XCTAssertEqual(m.totalOps, 10_000, "behind schedule, every op still runs")
        let pacing = try XCTUnwrap(m.pacing)
        XCTAssertEqual(pacing.targetOpsPerSecond, 1e9)
        XCTAssertFalse(pacing.keptUp, "nobody does 1G ops/s")
        XCTAssertGreaterThan(pacing.maxLagNs, 0)
        XCTAssertEqual(m.responseLatency?.count, 10_000)
        XCTAssertGreaterThanOrEqual(m.responseLatency!.maxNanoseconds, m.latency!.maxNanoseconds, "response includes the wait behind schedule")
    }

    func testLoadAndTimingPlanErrors() {
        let p = TestSupport.problems("""
            experiments:
              - workload: counter
                load: { mode: paced }
              - workload: counter
                warmup: 0s
                load: { mode: paced, rate: 50% }
              - workload: counter
                load: { mode: paced, rate: fast, arrivals: bursty }
              - workload: counter
                timing: { clock: sundial, sample: 0 }
              - workload: counter
                allocator: [tcmalloc]
            """)
        XCTAssertEqual(p.map { "\($0.path): \($0.message)" }, [
            "experiments[0].load: a paced load needs a 'rate' (200k, or 50% of capacity)",
            "experiments[1]: a paced rate given as a share of capacity is calibrated during the warm-up; set a warm-up (e.g. warmup: 200ms)",
            "experiments[2].load: a paced load needs a 'rate' (200k, or 50% of capacity)",
            "experiments[2].load.rate: expected a rate in operations per second (200k) or a share of capacity (50%), found 'fast'",
            "experiments[2].load.arrivals: expected fixed or poisson, found 'bursty'",
            "experiments[3].timing.clock: unknown clock 'sundial' (available: monotonic, tsc, auto)",
            "experiments[3].timing.sample: 0 is out of range: expected 'auto' or a sampling interval (1 times every operation) from 1 to 1000000",
            "experiments[4].allocator[0]: unknown allocator 'tcmalloc' (available: system, jemalloc)",
        ])
    }
}
