import CStressSupport

/// A fuzz point that code under test may place anywhere: in a team's own
/// class, between two halves of an update, in a callback.
///
/// It finds the current worker by itself: the calling thread's (a thread
/// worker), or the current task's (a task worker). Outside a trial it does
/// nothing, at the cost of a thread-local load and a branch; inside one it is
/// a point of the worker's own fuzzer (a stream of decisions apart from the
/// engine's, so adding one never shifts those), which may yield, spin or sleep
/// here, and, under PCT, wait for a higher-priority worker. It allocates
/// nothing and takes no lock.
///
/// Under controlled scheduling the point shows in a failure's trace when a
/// switch happens here, or always when it has a `label`, with the place in
/// the source that called it.
///
/// - Parameters:
///   - label: What the code is about to do, for the trace (`"publish"`); nil for none.
///   - file: The caller's file (the compiler fills it in).
///   - line: The caller's line (the compiler fills it in).
@inline(__always)
public func fuzzPoint(_ label: StaticString? = nil, file: StaticString = #fileID, line: UInt = #line) {
    if let raw = stress_ambient() {
        Participation.locate(file: file, line: line, label: label)
        AmbientContext.at(raw).pointee.fuzz(.user)
    } else if stress_trial_is_running() != 0 {
        AmbientContext.inTask()?.pointee.fuzzInTask(.user)
    }
}

/// Reports that an invariant of the code under test broke, from anywhere (a
/// development-build assertion, a confinement check): it counts as a
/// violation of the current worker's trial, with where that worker is.
/// Outside a trial it does nothing and returns false; inside one it returns
/// true.
///
/// - Parameter message: What broke, in words; evaluated only inside a trial.
/// - Returns: Whether a trial recorded it.
@discardableResult
public func reportViolation(_ message: @autoclosure () -> String) -> Bool {
    if let raw = stress_ambient() {
        AmbientContext.at(raw).pointee.record(message())
        return true
    }
    if stress_trial_is_running() != 0, let context = AmbientContext.inTask() {
        context.pointee.record(message())
        return true
    }
    return false
}

/// What code under test reaches from anywhere while a trial runs on its
/// worker: the worker's own fuzzer for the points it places, and a book of
/// the violations it reports. One per worker, in memory the worker owns; the
/// thread-local `stress_ambient_context` points at it on a thread worker, the
/// task-local ``AmbientHandle/current`` on a task worker.
struct AmbientContext {
    var fuzzer: Fuzzer
    let thread: Int
    let probe: SiteProbe
    /// "operation/step" by site id, to say where a violation was reported.
    let labels: [String]
    let samplesLimit: Int
    /// Set when the trial stops at its first violation.
    var stopSignal: TrialControl?
    /// The trial's control, on a task worker: a `waitUntil` step there gives
    /// up quietly once the trial stops.
    var control: TrialControl?
    /// The trial's controlled scheduler, when it has one: the harness-aware
    /// primitives model their blocking through it.
    var scheduling: ControlledScheduler?
    private(set) var violationCount = 0
    private(set) var samples: [ViolationSample] = []
    private(set) var firstViolationAt: UInt64?

    init(fuzzer: Fuzzer, thread: Int, probe: SiteProbe, labels: [String], samplesLimit: Int) {
        self.fuzzer = fuzzer
        self.thread = thread
        self.probe = probe
        self.labels = labels
        self.samplesLimit = samplesLimit
    }

    @inline(__always)
    static func at(_ raw: UnsafeMutableRawPointer) -> UnsafeMutablePointer<AmbientContext> {
        raw.assumingMemoryBound(to: AmbientContext.self)
    }

    /// The current task's context, if it is a task worker's.
    static func inTask() -> UnsafeMutablePointer<AmbientContext>? {
        AmbientHandle.current?.context
    }

    /// A fuzz point on a thread.
    @inline(__always)
    mutating func fuzz(_ point: FuzzPoint) {
        if fuzzer.active { fuzzer.hit(point) }
    }

    /// A fuzz point in a task: it may be inside an actor's isolated code, so
    /// PCT only counts it (waiting there would hold the actor the others need).
    @inline(__always)
    mutating func fuzzInTask(_ point: FuzzPoint) {
        if fuzzer.active { fuzzer.hitIsolated(point) }
    }

    /// Books a violation at the worker's current site.
    mutating func record(_ message: String) {
        if violationCount == 0 {
            firstViolationAt = MonotonicClock.now()
            stopSignal?.enter(TrialControl.stop)
        }
        violationCount += 1
        guard samples.count < samplesLimit else { return }
        let site = probe.current()
        let saved = site.phase == .blocked ? SiteWord(raw: stress_load_relaxed(probe.slot + SiteBoard.Word.savedSite)) : site
        let label = saved.site.flatMap { labels.indices.contains($0) ? labels[$0] : nil }
        let parts = label?.split(separator: "/", maxSplits: 1).map(String.init)
        samples.append(ViolationSample(thread: thread, operation: parts?.first ?? "(outside any operation)",
                                       step: parts?.dropFirst().first, opNumber: nil, message: message))
    }
}

/// A task worker's ``AmbientContext``, carried by a task-local value (tasks
/// move between threads, so a thread-local cannot follow them).
struct AmbientHandle: @unchecked Sendable {
    // @unchecked: a pointer to memory of one worker's, used only by that
    // worker's task (one thread at a time).
    let context: UnsafeMutablePointer<AmbientContext>

    @TaskLocal static var current: AmbientHandle?
}

/// Reports a value the code under test read or wrote, for a controlled
/// trial's trace ("read balance -> 40"): it shows as a row of the failing
/// interleaving, with the caller's place in the source. Outside a
/// controlled trial it does nothing, at the cost of a thread-local load and
/// a branch.
///
/// - Parameters:
///   - label: What the value is (`"read balance"`).
///   - value: The value.
///   - file: The caller's file (the compiler fills it in).
///   - line: The caller's line (the compiler fills it in).
@inline(__always)
public func traceValue(_ label: StaticString, _ value: Int, file: StaticString = #fileID, line: UInt = #line) {
    Participation.traceValue(label, value, file: file, line: line)
}
