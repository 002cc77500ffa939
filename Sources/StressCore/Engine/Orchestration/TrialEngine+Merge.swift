// The end of a trial: the workers' reports merged into the engine's output
// (a file of its own: the engine's file holds how a trial runs).
extension TrialEngine {
    static func merge<W: Workload>(
        _ reports: [WorkerReport], workload: W, state: W.State,
        operations: [StressOperation<W.State>], settings: TrialSettings,
        window: UsageWindow, schedule: PacingSchedule
    ) -> EngineOutput {
        merge(reports, operations: operations, settings: settings, window: window, schedule: schedule,
              finalCheck: { workload.finalCheck(state, $0) }, metrics: workload.metrics(state))
    }

    /// The workers' reports merged: histograms in clock ticks, counts, tallies,
    /// violations, then the final checks and the figures.
    static func merge<State>(
        _ reports: [WorkerReport], operations: [StressOperation<State>], settings: TrialSettings,
        window: UsageWindow, schedule: PacingSchedule,
        finalCheck: (RunTotals) -> [String], metrics: [String: Double]
    ) -> EngineOutput {
        let usage = window.span
        let clock = TimeSource.resolve(settings.timing.clock)
        // Merged in clock ticks (every worker's histogram has the same layout
        // and clock), then turned into nanoseconds once.
        var serviceTicks = TickHistogram(), acquireTicks = TickHistogram(), responseTicks = TickHistogram()
        defer { serviceTicks.deallocate(); acquireTicks.deallocate(); responseTicks.deallocate() }
        var tally = Tally()
        var measured = Array(repeating: 0, count: operations.count)
        var all = Array(repeating: 0, count: operations.count)
        var violationCount = 0
        var samples: [ViolationSample] = []
        var timedOps = 0
        for r in reports {
            if settings.summarizesLatency {
                serviceTicks.add(r.histogram)
                acquireTicks.add(r.acquireHistogram)
                responseTicks.add(r.responseHistogram)
            }
            r.freeHistograms()
            timedOps += r.timedOps
            tally.add(r.tally)
            for i in operations.indices {
                measured[i] += r.measuredCounts[i]
                all[i] += r.allCounts[i]
            }
            violationCount += r.violationCount
            samples += r.samples
        }
        var allByName: [String: Int] = [:]
        var measuredByName: [String: Int] = [:]
        for (i, op) in operations.enumerated() {
            allByName[op.name, default: 0] += all[i]
            measuredByName[op.name, default: 0] += measured[i]
        }
        let totals = RunTotals(operationCounts: allByName, tally: tally, threads: settings.threads)
        for message in finalCheck(totals) {
            violationCount += 1
            samples.append(ViolationSample(thread: nil, operation: "final-check", step: nil, opNumber: nil, message: message))
        }
        let perTick = clock.nanosecondsPerTick
        // A shrinking candidate's latency is read by nobody, and merging
        // and summarizing it cost more than a short controlled run.
        let summarize = settings.summarizesLatency
        let histogram = (summarize ? serviceTicks.latencyHistogram(nanosecondsPerTick: perTick) : LatencyHistogram.none).digest()
        let acquire = (summarize ? acquireTicks.latencyHistogram(nanosecondsPerTick: perTick) : LatencyHistogram.none).digest()
        let response = (summarize ? responseTicks.latencyHistogram(nanosecondsPerTick: perTick) : LatencyHistogram.none).digest()
        let start = reports.map(\.startNs).min() ?? 0
        let end = reports.map(\.endNs).max() ?? start
        let elapsed = Int(end &- start)
        let totalOps = reports.reduce(0) { $0 + $1.measuredOps }
        let measurement = TrialMeasurement(
            elapsedNanoseconds: elapsed,
            totalOps: totalOps,
            opsPerSecond: elapsed > 0 ? Double(totalOps) / (Double(elapsed) / 1e9) : 0,
            perThreadOps: reports.map(\.measuredOps),
            operations: measuredByName,
            warmupOps: reports.reduce(0) { $0 + $1.warmupOps },
            latencyKind: "service-time",
            latency: histogram.summary,
            histogram: histogram.buckets,
            workloadMetrics: metrics,
            timing: timingInfo(settings, clock: clock, totalOps: totalOps, timedOps: timedOps),
            acquireLatency: acquire.summary,
            longestGapNanoseconds: reports.allSatisfy { $0.maxStallNs != nil } ? reports.map { Int($0.maxStallNs ?? 0) } : nil,
            fairness: Fairness(perThreadOps: reports.map(\.measuredOps)),
            resources: usage.map { ResourceUsage(from: $0.start, to: $0.end, operations: totalOps) },
            allocator: allocatorMetrics(reports, window: window, operations: totalOps),
            responseLatency: response.summary,
            pacing: pacingReport(settings, schedule, reports, totalOps: totalOps, elapsedNs: elapsed),
            acquireHistogram: acquire.summary != nil ? acquire.buckets : nil,
            responseHistogram: response.summary != nil ? response.buckets : nil
        )
        var output = EngineOutput(measurement: measurement, violations: ViolationReport(count: violationCount, samples: samples))
        output.measuredLoops = reports.map(\.measuredLoop)
        return output
    }
}

/// How the trial timed its operations: the clock, and the interval actually
/// used over all workers (`auto` picks one per worker).
private func timingInfo(_ settings: TrialSettings, clock: TimeSource, totalOps: Int, timedOps: Int) -> TimingInfo {
    let every: Int
    let sampling: String
    switch settings.timing.sampling {
    case _ where settings.load.mode == .paced:
        // A paced loop times every operation (it needs each one's end).
        every = 1
        sampling = "paced"
    case .every(let n):
        every = n
        sampling = "fixed"
    case .auto:
        every = timedOps > 0 ? Swift.max(1, Int((Double(totalOps) / Double(timedOps)).rounded())) : 1
        sampling = "auto"
    }
    return TimingInfo(clock: clock.source.rawValue, sampleEvery: every, clockReadNs: (clock.readCost * 10).rounded() / 10,
                      sampling: sampling, timedOps: timedOps)
}

/// How a paced run kept to its schedule; nil for closed-loop runs.
private func pacingReport(_ settings: TrialSettings, _ schedule: PacingSchedule, _ reports: [WorkerReport],
                          totalOps: Int, elapsedNs: Int) -> PacingReport? {
    guard settings.load.mode == .paced else { return nil }
    let target = schedule.perWorkerRate * Double(settings.threads)
    let achieved = elapsedNs > 0 ? Double(totalOps) / (Double(elapsedNs) / 1e9) : 0
    return PacingReport(
        targetOpsPerSecond: target, achievedOpsPerSecond: achieved,
        maxLagNs: Int(reports.map(\.maxLagNs).max() ?? 0),
        keptUp: target > 0 && achieved >= 0.97 * target,
        calibratedCapacity: schedule.capacity)
}

/// What the allocator counted in the window: jemalloc's statistics, or the
/// system allocator's calls as malloc-interposer counted them; nil figures
/// where it cannot say.
private func allocatorMetrics(_ reports: [WorkerReport], window: UsageWindow, operations: Int) -> AllocatorMetrics {
    let ops = Double(Swift.max(operations, 1))
    guard Jemalloc.isLoaded else {
        guard let counted = window.systemMalloc else {
            return AllocatorMetrics(name: AllocatorKind.system.rawValue,
                                    note: "no allocation counter sees this process (malloc-interposer is not interposed here); use allocator: jemalloc")
        }
        // Every thread of the process, over the window, as jemalloc's requests are.
        return AllocatorMetrics(
            name: AllocatorKind.system.rawValue, bytesPerOp: Double(counted.bytes) / ops,
            allocationsPerOp: Double(counted.allocations) / ops,
            note: "counted by malloc-interposer: every allocation call of the process over the window; resident bytes need jemalloc")
    }
    let bytes = reports.allSatisfy { $0.allocatedBytes != nil }
        ? Double(reports.reduce(UInt64(0)) { $0 + ($1.allocatedBytes ?? 0) }) / ops : nil
    var requests: Double?
    if let a = window.allocatorStart, let b = window.allocatorEnd { requests = Double(b.requests &- a.requests) / ops }
    return AllocatorMetrics(
        name: AllocatorKind.jemalloc.rawValue, bytesPerOp: bytes, allocationsPerOp: requests,
        residentBytes: window.allocatorEnd.map { Int($0.resident) },
        note: bytes == nil ? "bytes per op are per worker thread; task workers move between threads" : nil)
}
