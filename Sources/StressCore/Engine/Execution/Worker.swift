import CStressSupport
/// Everything one worker owns during a trial: its frame, its statistics and its
/// operations' names. Nothing here is shared, so recording needs no lock and no
/// atomic; counts and histograms live in raw memory the worker allocated, so
/// recording is a store, with no array uniqueness check. Not generic over the
/// workload's state (the operations themselves are the driver's), so that the
/// measured loop compiled for a strategy's type (``_MeasuredLoop``) can use it.
struct Worker {
    /// Each operation's name and its steps' names, for violation samples.
    let names: [(operation: String, steps: [String])]
    let operationCount: Int
    let picker: OperationPicker
    let siteBase: [Int]
    var frame: OpFrame
    /// Service times, acquire waits and the longest stall of the timed
    /// operations, and (paced runs) their response times, in raw ticks.
    var timing = TimingRecord()
    var responseHistogram = TickHistogram()
    /// Timing: the clock, the current sampling interval, and a seeded gap
    /// generator kept apart from the operation stream (so timing never changes
    /// which operations run).
    let clock: TimeSource
    private(set) var sampleEvery: Int
    /// `auto` sampling: the measurement that picks the interval, while it runs.
    private var autoProbe: AutoSamplingProbe?
    private var sampler: SplitMix64
    /// Operations to run untimed before the next timed one.
    private(set) var countdown = 0
    /// Paced runs: the largest start delay behind the schedule.
    var maxLagTicks: UInt64 = 0
    /// jemalloc's count of bytes this thread allocated, at the loop's start and end.
    var allocatedAtStart: UInt64?
    var allocatedBytes: UInt64?
    /// Completed operations by index: measured ones in `0..<n`, warm-up ones in `n..<2n`.
    let counts: UnsafeMutablePointer<Int>
    var violationCount = 0
    /// Set when the trial stops at its first violation.
    var stopSignal: TrialControl?
    /// When this worker first saw a violation (monotonic ns), for time-to-detection.
    var firstViolationAt: UInt64?
    var samples: [ViolationSample] = []
    let samplesLimit: Int
    var startNs: UInt64 = 0
    var endNs: UInt64 = 0
    /// Operations started so far (warm-up included): the next one's number.
    var opNumber = 0
    /// A scenario's worker: the outcomes of the rounds it arbitrated.
    var outcomes: OutcomeTable?
    /// What the code under test reaches from anywhere on this worker
    /// (``fuzzPoint(_:file:line:)``, ``reportViolation(_:)``), in memory the worker owns.
    let ambient: UnsafeMutablePointer<AmbientContext>
    /// Where a task worker's frame goes while a step body runs in an actor's
    /// isolated code (``FrameSlot``).
    let slot: FrameSlot
    /// The loop the measured window ran in, set when it is chosen.
    var measuredLoop = MeasuredLoopKind.general

    init<State>(thread: Int, settings: TrialSettings, operations: [StressOperation<State>], board: SiteBoard, fuzzShared: (any FuzzCoordinator)?) {
        let seed = settings.seed, samplesLimit = settings.samplesPerWorker
        clock = TimeSource.resolve(settings.timing.clock)
        switch settings.timing.sampling {
        case .every(let n):
            sampleEvery = n
            autoProbe = nil
        case .auto:
            sampleEvery = 1
            autoProbe = AutoSamplingProbe()
        }
        sampler = SplitMix64(seed: SplitMix64.derive(seed, 0x7_1111 &+ UInt64(thread)))
        names = operations.map { ($0.name, $0.steps.map(\.name)) }
        operationCount = operations.count
        picker = OperationPicker(weights: operations.map(\.weight))
        siteBase = Array(board.siteBase)
        frame = OpFrame(thread: thread, seed: SplitMix64.derive(seed, UInt64(thread)))
        frame.probe = SiteProbe(slot: board.siteSlot(thread))
        frame.clock = clock
        let fuzzes = settings.fuzz.isActive || fuzzShared != nil
        frame.fuzz = fuzzes
            ? Fuzzer(settings: settings.fuzz, seed: seed, thread: thread, threads: settings.threads, coordinator: fuzzShared, probe: frame.probe)
            : .off
        counts = .allocate(capacity: 2 * operations.count)
        counts.initialize(repeating: 0, count: 2 * operations.count)
        self.samplesLimit = samplesLimit
        // The code under test's own fuzz points draw from a stream of their
        // own: adding one never shifts the engine's decisions.
        let ambientFuzzer = fuzzes
            ? Fuzzer(settings: settings.fuzz, seed: SplitMix64.derive(seed, 0xA3B1E47), thread: thread, threads: settings.threads,
                     coordinator: fuzzShared, probe: frame.probe)
            : .off
        ambient = .allocate(capacity: 1)
        ambient.initialize(to: AmbientContext(fuzzer: ambientFuzzer, thread: thread, probe: frame.probe, labels: board.labels,
                                              samplesLimit: samplesLimit))
        slot = FrameSlot(frame)
    }

    /// Makes this worker's line and ambient context the calling thread's
    /// (a thread worker, as it starts).
    func attachToThread(_ board: SiteBoard) {
        stress_participant_attach(board.line(frame.thread))
        stress_ambient_set(UnsafeMutableRawPointer(ambient))
    }

    /// Undoes ``attachToThread(_:)`` (as the worker ends).
    func detachFromThread() {
        stress_participant_attach(nil)
        stress_ambient_set(nil)
    }

    /// Chooses the next operation and prepares the frame for it.
    @inline(__always)
    mutating func begin() -> Int {
        let index = picker.pick(&frame.random)
        frame.beginOperation(number: opNumber, siteBase: siteBase[index])
        opNumber &+= 1
        return index
    }

    /// The seeded pause after the start barrier when fuzzing (spreads the
    /// workers' first operations apart).
    func stagger() {
        if frame.fuzz.active { MonotonicClock.sleep(nanoseconds: frame.fuzz.stagger()) }
    }

    /// The same for a task worker: it suspends instead of blocking a pool thread.
    func staggerTask() async {
        if frame.fuzz.active { try? await Task.sleep(nanoseconds: frame.fuzz.stagger()) }
    }

    /// Empties this thread's allocator cache before the measured window opens,
    /// so the window's process-wide count holds no leftovers of the warm-up.
    func flushAllocatorCache() {
        if Jemalloc.isLoaded { Jemalloc.flushThreadCache() }
    }

    /// Reads the allocator's per-thread counter as the measured loop starts
    /// (outside the timed region; nothing when jemalloc is not loaded).
    mutating func beginAllocationCount() {
        guard Jemalloc.isLoaded else { return }
        allocatedAtStart = Jemalloc.threadAllocated()
    }

    /// Reads it again as the loop ends, and flushes the thread's cache so the
    /// window's process-wide count sees this thread's requests.
    mutating func endAllocationCount() {
        guard let start = allocatedAtStart, let end = Jemalloc.threadAllocated() else { return }
        allocatedBytes = end &- start
        Jemalloc.flushThreadCache()
    }

    /// Publishes a phase that belongs to no operation (barriers, the end).
    func publish(_ phase: WorkerPhase) {
        frame.probe.publish(SiteWord(site: -1, phase: phase))
    }

    /// Whether to time the next operation.
    @inline(__always)
    mutating func shouldTime() -> Bool {
        if countdown > 0 {
            countdown &-= 1
            return false
        }
        // Gaps uniform in 0...2(N−1): one op timed in N on average.
        if sampleEvery > 1 { countdown = sampler.next(below: 2 &* sampleEvery &- 1) }
        return true
    }

    /// Notes that `n` operations ran untimed (at most ``countdown``), as `n`
    /// calls of ``shouldTime()`` answering no would.
    @inline(__always)
    mutating func ranUntimed(_ n: Int) {
        countdown &-= n
    }

    /// Starts timing an operation; returns the raw start reading.
    @inline(__always)
    mutating func startTiming() -> UInt64 {
        frame.timeThisOp = true
        frame.acquireTicks = 0
        frame.acquired = false
        let now = clock.now()
        frame.opStartTicks = now
        return now
    }

    /// Ends timing: records service time (and acquire wait) with the sampling
    /// weight, and the gap since the previous timed completion. Everything is
    /// kept in raw clock ticks here and turned into nanoseconds once, in
    /// ``finish()``: no floating point in the loop.
    @inline(__always)
    mutating func finishTiming(_ start: UInt64) {
        let end = clock.now()
        frame.timeThisOp = false
        timing.record(
            service: end &- start, acquire: frame.acquired ? frame.acquireTicks : nil, end: end,
            weight: UInt64(truncatingIfNeeded: sampleEvery)
        )
        if autoProbe != nil { autoSample(start: start) }
    }

    /// Whether every operation is timed from here on (a fixed interval of 1,
    /// or `auto` having picked 1), each with a weight of 1: a loop may then
    /// time a batch of them without asking ``shouldTime()`` each time.
    var timesEveryOperation: Bool { sampleEvery == 1 && autoProbe == nil }

    /// `auto` sampling: hands a timed operation's start to the probe and does
    /// what it says: time the next one too, run some untimed (the countdown),
    /// or take the interval it chose (and draw the first gap).
    @inline(never)
    private mutating func autoSample(start: UInt64) {
        switch autoProbe?.add(start: start, nanosecondsPerTick: clock.nanosecondsPerTick) {
        case .time, nil:
            break
        case .skip(let n):
            countdown = n
        case .interval(let n):
            autoProbe = nil
            sampleEvery = n
            if n > 1 { countdown = sampler.next(below: 2 &* n &- 1) }
        }
    }

    /// Books a finished operation (and its violation, if a step reported one).
    @inline(__always)
    mutating func end(_ index: Int, _ result: StepResult, step: Int, measured: Bool) {
        frame.probe.completed(opNumber)
        counts[measured ? index : operationCount &+ index] &+= 1
        if case .violation(let message) = result { recordViolation(index, step: step, message) }
    }

    @inline(never)
    mutating func recordViolation(_ index: Int, step: Int, _ message: String) {
        let op = names[index]
        recordViolation(message: message, operation: op.operation, step: op.steps.indices.contains(step) ? op.steps[step] : nil)
    }

    /// Books a violation seen in `operation` (`step`) at this worker's
    /// current op (none for a round's arbitration, `atOperation: false`).
    @inline(never)
    mutating func recordViolation(message: String, operation: String, step: String? = nil, atOperation: Bool = true) {
        if violationCount == 0 {
            firstViolationAt = MonotonicClock.now()
            stopSignal?.enter(TrialControl.stop)
        }
        violationCount += 1
        guard samples.count < samplesLimit else { return }
        samples.append(ViolationSample(thread: frame.thread, operation: operation, step: step,
                                       opNumber: atOperation ? frame.opNumber : nil, message: message))
    }

    /// The worker's report; frees the worker's raw memory but its histograms,
    /// which go with the report (in clock ticks: the engine merges every
    /// worker's and turns the sum into nanoseconds once). The last thing a
    /// worker does.
    mutating func finish() -> WorkerReport {
        // What the code under test reported from anywhere joins the worker's book.
        let reported = ambient.pointee
        violationCount += reported.violationCount
        samples += reported.samples.prefix(Swift.max(0, samplesLimit - samples.count))
        if let at = reported.firstViolationAt { firstViolationAt = Swift.min(firstViolationAt ?? at, at) }
        ambient.deinitialize(count: 1)
        ambient.deallocate()
        slot.free()
        let n = operationCount
        let measured = (0..<n).map { counts[$0] }
        let warmup = (0..<n).map { counts[n + $0] }
        let report = WorkerReport(
            histogram: timing.service, acquireHistogram: timing.acquire,
            // A stall is a gap between two timed completions: none with fewer than two.
            maxStallNs: timing.service.samples < 2 ? nil : clock.nanoseconds(timing.maxStallTicks), allocatedBytes: allocatedBytes,
            responseHistogram: responseHistogram,
            maxLagNs: clock.nanoseconds(maxLagTicks), firstViolationAt: firstViolationAt,
            measuredCounts: measured, allCounts: zip(measured, warmup).map { $0 &+ $1 },
            warmupOps: warmup.reduce(0, &+), violationCount: violationCount, samples: samples,
            tally: frame.tally, startNs: startNs, endNs: endNs, timedOps: timing.service.samples, outcomes: outcomes,
            measuredLoop: measuredLoop
        )
        counts.deallocate()
        return report
    }
}
