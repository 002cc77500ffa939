/// A strategy made for one trial, in the form the engine drives.
public enum StrategyInstance: Sendable {
    /// Driven by OS threads.
    case blocking(any BlockingStrategy)
    /// Driven by tasks.
    case isolating(any IsolatingStrategy)

    /// The strategy's descriptor.
    public var descriptor: StrategyDescriptor {
        switch self {
        case .blocking(let s): return type(of: s).descriptor
        case .isolating(let s): return type(of: s).descriptor
        }
    }
}

/// What the engine produces for one trial in this process.
public struct EngineOutput: Sendable {
    /// The figures.
    public var measurement: TrialMeasurement
    /// Broken invariants, from workers and final checks.
    public var violations: ViolationReport
}

/// Runs one trial of one workload under one strategy, in this process.
///
/// The engine knows workloads and strategies only through their protocols. The
/// worker loop is specialised for the workload's state type (its metadata is
/// static, so nothing is looked up per operation) and calls the strategy through
/// its protocol witness: one indirect call per critical section.
public enum TrialEngine {
    /// Runs the trial and merges the workers' reports.
    ///
    /// A watchdog watches the workers; if none completes an operation for
    /// `settings.stallAfterNs` it calls `onStall` with where every worker is.
    /// `onStall` must end the trial (the stuck workers never return): the child
    /// side writes a `deadlock`/`hang` record and waits to be killed.
    public static func run<W: Workload>(
        _ workload: W, strategy: StrategyInstance, settings: TrialSettings,
        onStall: @escaping @Sendable (StallReport) -> Void
    ) throws(EngineError) -> EngineOutput {
        let state = workload.makeState(threads: settings.threads)
        let makeOperations: @Sendable () -> [Operation<W.State>]
        if strategy.descriptor.lockFree {
            guard workload.lockFreeOperations() != nil else {
                throw EngineError("workload \(W.descriptor.name) has no lock-free form for strategy \(strategy.descriptor.name)")
            }
            makeOperations = { workload.lockFreeOperations() ?? [] }
        } else {
            makeOperations = { workload.operations() }
        }
        let operations = makeOperations()
        guard !operations.isEmpty else { throw EngineError("workload \(W.descriptor.name) has no operations") }
        guard !operations.contains(where: { $0.steps.isEmpty }) else {
            throw EngineError("workload \(W.descriptor.name) has an operation with no steps")
        }
        // Resolve the clock (and measure what a read costs) first: calibrating
        // the TSC takes 20 ms, which must not count toward the time to the
        // first violation, and `auto` sampling needs the read cost.
        _ = TimeSource.resolve(settings.timing.clock).readCost
        var settings = settings
        // Soft PCT spreads its change points over the run's fuzz-point count,
        // which it learns from the warm-up: give it one when the plan has none.
        if settings.fuzz.pctDepth > 0 && settings.warmupNs < PCTCalibration.warmupNs {
            settings.warmupNs = PCTCalibration.warmupNs
        }
        let trialStart = MonotonicClock.now()
        let board = SiteBoard(workers: settings.threads, operations: operations)
        board.installCrashReporter()
        let watchdog = Watchdog(board: board, stallAfterNs: settings.stallAfterNs, strategy: strategy.descriptor, onStall: onStall)
        let watching = watchdog.start()
        let fuzzShared = settings.fuzz.pctDepth > 0 ? FuzzShared(board: board, settings: settings.fuzz, seed: settings.seed) : nil
        let reports: [WorkerReport]
        let window = UsageWindow()
        let schedule = PacingSchedule()
        var deferred = ViolationReport.none
        var deferredFirst: UInt64?
        switch strategy {
        case .blocking(let s):
            let access = BlockingAccess(s, labels: board.labels)
            do {
                reports = try ThreadDriver.run(state: state, makeOperations: makeOperations, access: access, board: board, fuzz: fuzzShared, window: window, schedule: schedule, settings: settings)
            } catch {
                watchdog.stop(watching)
                throw error
            }
            deferred = access.deferredWrites?.report ?? .none
            deferredFirst = access.deferredWrites?.firstAt
        case .isolating(let s):
            guard settings.load.mode == .closed else {
                watchdog.stop(watching)
                throw EngineError("a paced load needs a blocking strategy; \(strategy.descriptor.name) runs tasks, which stressbench drives closed-loop")
            }
            reports = TaskDriver.run(state: state, makeOperations: makeOperations, strategy: s, board: board, fuzz: fuzzShared, window: window, settings: settings)
        }
        watchdog.stop(watching)
        var output = merge(reports, workload: workload, state: state, operations: operations, settings: settings,
                           window: window, schedule: schedule)
        output.violations.count += deferred.count
        output.violations.samples += deferred.samples
        let firsts = reports.compactMap(\.firstViolationAt) + [deferredFirst].compactMap { $0 }
        output.violations.firstAfterNs = firsts.min().map { Int($0 &- trialStart) }
        return output
    }

    private static func merge<W: Workload>(
        _ reports: [WorkerReport], workload: W, state: W.State,
        operations: [Operation<W.State>], settings: TrialSettings,
        window: UsageWindow, schedule: PacingSchedule
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
            serviceTicks.add(r.histogram)
            acquireTicks.add(r.acquireHistogram)
            responseTicks.add(r.responseHistogram)
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
        for message in workload.finalCheck(state, totals) {
            violationCount += 1
            samples.append(ViolationSample(thread: nil, operation: "final-check", step: nil, opNumber: nil, message: message))
        }
        let perTick = clock.nanosecondsPerTick
        let histogram = serviceTicks.latencyHistogram(nanosecondsPerTick: perTick)
        let acquire = acquireTicks.latencyHistogram(nanosecondsPerTick: perTick)
        let response = responseTicks.latencyHistogram(nanosecondsPerTick: perTick)
        let start = reports.map(\.startNs).min() ?? 0
        let end = reports.map(\.endNs).max() ?? start
        let elapsed = Int(end &- start)
        let totalOps = reports.reduce(0) { $0 + $1.measuredOps }
        let measurement = TrialMeasurement(
            elapsedNs: elapsed,
            totalOps: totalOps,
            opsPerSecond: elapsed > 0 ? Double(totalOps) / (Double(elapsed) / 1e9) : 0,
            perThreadOps: reports.map(\.measuredOps),
            operations: measuredByName,
            warmupOps: reports.reduce(0) { $0 + $1.warmupOps },
            latencyKind: "service-time",
            latency: histogram.summary(),
            histogram: histogram.buckets,
            workloadMetrics: workload.metrics(state),
            timing: timingInfo(settings, clock: clock, totalOps: totalOps, timedOps: timedOps),
            acquireLatency: acquire.summary(),
            maxStallNs: reports.allSatisfy { $0.maxStallNs != nil } ? reports.map { Int($0.maxStallNs ?? 0) } : nil,
            fairness: Fairness(perThreadOps: reports.map(\.measuredOps)),
            resources: usage.map { ResourceUsage(from: $0.start, to: $0.end, operations: totalOps) },
            allocator: allocatorMetrics(reports, window: window, operations: totalOps),
            responseLatency: response.summary(),
            pacing: pacingReport(settings, schedule, reports, totalOps: totalOps, elapsedNs: elapsed),
            acquireHistogram: acquire.count > 0 ? acquire.buckets : nil,
            responseHistogram: response.count > 0 ? response.buckets : nil
        )
        return EngineOutput(measurement: measurement, violations: ViolationReport(count: violationCount, samples: samples))
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

/// What jemalloc counted in the window; nil figures where it cannot say.
private func allocatorMetrics(_ reports: [WorkerReport], window: UsageWindow, operations: Int) -> AllocatorMetrics {
    guard Jemalloc.isLoaded else {
        return AllocatorMetrics(name: AllocatorKind.system.rawValue,
                                note: "the system allocator keeps no statistics stressbench can read; use allocator: jemalloc")
    }
    let ops = Double(Swift.max(operations, 1))
    let bytes = reports.allSatisfy { $0.allocatedBytes != nil }
        ? Double(reports.reduce(UInt64(0)) { $0 + ($1.allocatedBytes ?? 0) }) / ops : nil
    var requests: Double?
    if let a = window.allocatorStart, let b = window.allocatorEnd { requests = Double(b.requests &- a.requests) / ops }
    return AllocatorMetrics(
        name: AllocatorKind.jemalloc.rawValue, bytesPerOp: bytes, allocationsPerOp: requests,
        residentBytes: window.allocatorEnd.map { Int($0.resident) },
        note: bytes == nil ? "bytes per op are per worker thread; task workers move between threads" : nil)
}

/// The process's resource counters at the start and end of the measured window,
/// read by the coordinator (never by a worker).
final class UsageWindow: @unchecked Sendable {
    // @unchecked: written only by the coordinating thread, before and after the
    // workers' measured loops, and read by it afterwards.
    private var start: ResourceUsage.Reading?
    private var end: ResourceUsage.Reading?
    private(set) var allocatorStart: Jemalloc.Totals?
    private(set) var allocatorEnd: Jemalloc.Totals?

    func open() {
        start = .now()
        allocatorStart = Jemalloc.totals()
    }

    func close() {
        end = .now()
        allocatorEnd = Jemalloc.totals()
    }

    var span: (start: ResourceUsage.Reading, end: ResourceUsage.Reading)? {
        guard let start, let end else { return nil }
        return (start, end)
    }
}
