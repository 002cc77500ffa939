#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CStressSupport
import Synchronization

/// Controlled scheduling for thread workers: real OS threads, of which
/// exactly one holds the run token at a time, while the seed's policy picks,
/// at every scheduling point, which worker holds it next (Fray's "shadow
/// locking" on real threads; the choice is Shuttle's scheduler interface,
/// ``ExecutionScheduler``).
///
/// What the workers do between two scheduling points runs alone, so the
/// interleaving is the sequence of the policy's decisions and nothing else:
/// the same seed makes the same decisions on one core or many, loaded or
/// quiet, and a failure replays exactly.
///
/// Blocking is modelled, never waited out (see ``ShadowResources``): a
/// worker that asks for a section, lock or semaphore that the model says is
/// taken, or waits on a condition, is *blocked* and hands the token on; it
/// is runnable again when the resource frees. When every live worker is
/// blocked, that is a deadlock, reported at once; when the trial is stopping,
/// control ends and the workers run free to their ends. A holder that blocks
/// where the model cannot see is noticed by ``EscapeMonitor`` and the others
/// go on without it (control is then `partial`).
///
/// The scheduler's fields are guarded by a small lock of their own
/// (``lockState()``), which the token's holder takes at each call and almost
/// never finds taken: only the escape monitor, and a worker coming back from
/// an escape, contend for it.
final class ControlledScheduler: FuzzCoordinator, @unchecked Sendable {
    // @unchecked: every mutable field below is read and written only under
    // the state lock (a spin lock on an atomic, acquire and release).
    // @exclusivity(unchecked) on each, for the same reason: the lock already
    // makes every access exclusive, and Swift's dynamic checks of a class's
    // stored properties (a thread-local access set, entered and left at each
    // access) cost about half of a decision.

    /// The participants the policy picks among: the trial's workers
    /// (`0..<threads`), the main thread's slot (``mainSlot``, index
    /// `threads`), then the queue workers (``firstQueueWorker`` on; they
    /// run the blocks submitted with `StressQueue.async`, see ``QueueBook``).
    let workers: Int
    /// The main thread's index, one past the trial's workers, when it takes
    /// part (it serves the main queue; see ``MainThreadService``); -1 when
    /// it does not.
    let mainSlot: Int
    /// Main-queue blocks submitted under control and not yet finished, and
    /// whether the main thread runs one now (it then holds the main queue in
    /// the model).
    @exclusivity(unchecked) var mainPending = 0
    @exclusivity(unchecked) var mainInBlock = false
    /// The policy's scheduler of the current execution. A fresh one for
    /// each epoch of ``epochLength`` decisions, and for each round of a
    /// scenario: a long trial is many executions as PCT counts them (new
    /// priorities, new change points), not one whose change points all fall
    /// in its first moments. Each execution's seed comes from `policySeed`;
    /// the holder restarts its scheduler with it in place, or has the
    /// policy make a new one (see ``HeldPolicy``).
    let policy: any HeldPolicy
    let policySeed: (_ epoch: UInt64) -> UInt64
    static let epochLength = Int(SchedulingDraws.pctHorizon)
    /// How long the first execution is expected to be, in decisions, before
    /// any has been measured (see ``expectedLength``).
    let lengthGuess: Int
    /// Where the current execution (round) began, and the longest one
    /// measured so far: the length later executions' policies spread their
    /// choices over, as Shuttle's PCT learns its step bound from earlier
    /// executions.
    @exclusivity(unchecked) var executionStart = 0
    @exclusivity(unchecked) var longestExecution = 0
    @exclusivity(unchecked) var status: StatusBoard
    @exclusivity(unchecked) var waitKey: [UInt64]
    /// When each waiter began to wait (for first-in, first-out signals).
    @exclusivity(unchecked) var waitSequence: [UInt64]
    /// Set for a timed waiter whose deadline passed rather than a signal.
    @exclusivity(unchecked) var timedOut: [Bool]
    /// The decision count when each waiter began to wait.
    @exclusivity(unchecked) var waitedSince: [Int]
    @exclusivity(unchecked) var sequence: UInt64 = 0
    /// The shadow model of every resource the workers take.
    @exclusivity(unchecked) var resources = ShadowResources()
    /// The runnable workers, in order, one copy for each decider (see
    /// ``RunnableLists``; rebuilt by a decision only when the board changed).
    let runnableLists: RunnableLists
    let forced: [Int]?
    @exclusivity(unchecked) var diverged = false
    /// Who decides past the forced decisions: the seed's policy, or (for
    /// shrinking and exploration) no preemption at all.
    @exclusivity(unchecked) var fallback = Fallback.policy
    /// Each worker's location for its next event (see ``locate(_:file:line:label:)``).
    @exclusivity(unchecked) var locations: [TraceRing.Location]
    /// The operation each worker is in, for the names of its steps (memory
    /// of its own: an array's write at every operation's start asked the
    /// runtime whether the array was shared).
    let currentOperation: UnsafeMutablePointer<Int>
    /// Every decision's choice among whom, when exploring (nil otherwise).
    @exclusivity(unchecked) var choices: [Choice]?
    /// How the trace names operations and steps (set by the engine).
    @exclusivity(unchecked) var names: TraceNames?
    /// The workload's state in one line, for the trace (set by the engine
    /// for a workload that describes its state).
    @exclusivity(unchecked) var describeState: (() -> String?)?
    /// Shrinking's replays: the worker to choose at each place that
    /// deviates from the non-preemptive schedule, and the decisions each
    /// worker has passed (the last slot: decisions with none current).
    @exclusivity(unchecked) var deviations: [ScheduleDeviation.Place: Int]?
    @exclusivity(unchecked) var decisionsOf: [Int]
    /// For exploration's footprints (with ``decidingAt``): where each
    /// worker was paused, where the running transition began, and the
    /// primitives it touched.
    @exclusivity(unchecked) var pausedAt: [UInt8]
    @exclusivity(unchecked) var transitionStart = ControlledScheduler.decidedElsewhere
    @exclusivity(unchecked) var transitionKeys: [UInt64] = []
    @exclusivity(unchecked) var transitionOverflow = false
    let maxDecisions: Int
    @exclusivity(unchecked) var control: TrialControl?
    /// Called once, with the stuck workers, when every live worker is blocked.
    let onDeadlock: @Sendable (_ stuck: [Int], _ schedule: ScheduleRecord, _ detail: StallDetail) -> Void
    /// Called once when no operation ends for ``livelockLimit`` points.
    @exclusivity(unchecked) var onLivelock: (@Sendable (_ worker: Int, _ points: Int, _ schedule: ScheduleRecord, _ detail: StallDetail) -> Void)?
    @exclusivity(unchecked) var stallReported = false
    /// Spurious wake-ups: their probability per decision, the seeded stream
    /// that draws them, and which waiters wait on a condition (the only
    /// waits that may end without a signal).
    let spuriousProbability: Double
    @exclusivity(unchecked) var spuriousDraws: SplitMix64
    @exclusivity(unchecked) var onCondition: [Bool]
    /// A scenario's barriers: arrivals so far and the last decision.
    @exclusivity(unchecked) var meetings: [(key: UInt64, arrived: Int, decision: Int)] = []
    /// Whether rounds, not counts of decisions, delimit the executions.
    @exclusivity(unchecked) var roundEpochs = false
    /// A holder that passes this many points while nobody ends anything
    /// (``sinceSwitch``, ``sinceOperationEnd``) is taken to spin (on a flag,
    /// a `try` loop) and another worker is picked, as Lincheck switches away
    /// from a spinning thread; past ``livelockLimit`` it is a livelock.
    static let spinLimit = 64
    static let livelockLimit = 100_000
    @exclusivity(unchecked) var arrived = 0
    /// Whether each worker takes part (the others are idle in a shrinking
    /// run, and count as finished from the start), and how many do.
    let participating: [Bool]
    let participants: Int
    /// Where the decisions also go, for the parent to read should the
    /// process die (``CrashJournal``); and the decision count at which a
    /// replay of a crashed run halts (-1: never) and whom it tells.
    @exclusivity(unchecked) var journal: CrashJournal?
    @exclusivity(unchecked) var haltAt = -1
    @exclusivity(unchecked) var onHalt: (@Sendable (_ schedule: ScheduleRecord, _ trace: [TraceEvent]) -> Void)?

    /// What every decision writes, on cache lines of its own (see
    /// ``DecisionLine``): the state lock, the token, the decisions made (for
    /// the escape monitor), and the fields below that reach into it.
    let line: DecisionLine
    // Control's end, and each worker's baton (a line each).
    let released = Atomic<Bool>(false)
    let batons: UnsafeMutablePointer<stress_baton>
    let spins: Int
    /// The `sched_yield()`s a waiter makes before it parks, where it does not
    /// spin (see ``init``).
    let yields: Int
    /// What ran where the scheduler could not see it (any thread may add).
    let escapes = Mutex<[String]>([])
    /// The blocks submitted with `async` under control, and whether the
    /// queue workers have been retired (no block can come any more).
    @exclusivity(unchecked) var queueBook = QueueBook()
    let queuesRetired = Atomic<Bool>(false)
    /// What the code under test reported from the queue workers' blocks.
    let queueViolations = Mutex<(count: Int, samples: [ViolationSample])>((0, []))

    /// A scheduler for `workers` thread workers, deciding by the policy (or
    /// following `forced` first), making at most `maxDecisions` decisions
    /// before it stops the trial. `policySeed` gives each execution's seed;
    /// `makePolicy` makes the first execution's scheduler from its seed, and
    /// a later one's only when the current one cannot restart in place (see
    /// ``HeldPolicy``).
    init(workers: Int, policy makePolicy: @escaping (_ seed: UInt64) -> any ExecutionScheduler,
         seeds policySeed: @escaping (_ epoch: UInt64) -> UInt64, forced: [Int]?, maxDecisions: Int,
         lengthGuess: Int = ControlledScheduler.epochLength, spuriousWakeups: Double = 0, seed: UInt64 = 0,
         onDeadlock: @escaping @Sendable (_ stuck: [Int], _ schedule: ScheduleRecord, _ detail: StallDetail) -> Void,
         fallback: Fallback = .policy, recordsChoices: Bool = false, deviations: [ScheduleDeviation]? = nil,
         participants: [Int]? = nil, mainThread: Bool = false) {
        self.fallback = fallback
        // The trial's workers; the main thread's slot, one past them, which
        // does not arrive at the start (it is idle until a main-queue block
        // is submitted) and takes part only where the main thread serves the
        // main queue; then the queue workers, which take part once a block
        // is submitted. The main thread's slot is kept where it takes no
        // part, so that a queue worker's index, and so a schedule that names
        // it, is the same in every process.
        let threads = workers
        var participating = Array(repeating: participants == nil, count: threads)
        for w in participants ?? [] where w >= 0 && w < threads { participating[w] = true }
        self.participants = participating.count(where: { $0 })
        mainSlot = mainThread ? threads : -1
        participating.append(mainThread)
        participating += Array(repeating: false, count: QueueBook.slots)
        self.participating = participating
        let workers = threads + 1 + QueueBook.slots
        if recordsChoices {
            choices = []
            choices?.reserveCapacity(Swift.min(maxDecisions, 1 << 16))
        }
        self.deviations = deviations.map { Dictionary($0.map { ($0.place, $0.worker) }, uniquingKeysWith: { a, _ in a }) }
        decisionsOf = Array(repeating: 0, count: workers + 1)
        self.workers = workers
        self.policySeed = policySeed
        self.lengthGuess = Swift.max(1, Swift.min(lengthGuess, Self.epochLength))
        policy = makePolicy(policySeed(0)).held(make: makePolicy)
        // The queue workers come after the workers and the main thread.
        policy.admitQueueWorkers(first: workers - QueueBook.slots, count: QueueBook.slots)
        policy.expectLength(self.lengthGuess)
        self.forced = forced
        self.maxDecisions = maxDecisions
        self.onDeadlock = onDeadlock
        spuriousProbability = spuriousWakeups
        spuriousDraws = SplitMix64(seed: SplitMix64.derive(seed, 0x5_9021_0A5))
        onCondition = Array(repeating: false, count: workers)
        status = StatusBoard(count: workers)
        waitKey = Array(repeating: 0, count: workers)
        waitSequence = Array(repeating: 0, count: workers)
        timedOut = Array(repeating: false, count: workers)
        waitedSince = Array(repeating: 0, count: workers)
        runnableLists = RunnableLists(deciders: workers + 1, workers: workers)
        line = DecisionLine(workers: workers,
                            counters: DecisionLine.Counters(decidingAt: Self.decidedElsewhere, log: DecisionLog(capacity: maxDecisions),
                                                            trace: TraceRing(capacity: Swift.min(maxDecisions * 2 + 64, Self.traceCapacity))))
        locations = Array(repeating: TraceRing.Location(), count: workers)
        currentOperation = .allocate(capacity: workers)
        currentOperation.initialize(repeating: -1, count: workers)
        pausedAt = Array(repeating: Self.decidedAtArrival, count: workers)
        // Each baton on a cache line of its own (the type is padded to one;
        // the allocation is aligned to one, so that no two straddle a line).
        batons = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<stress_baton>.stride * workers, alignment: 64)
            .bindMemory(to: stress_baton.self, capacity: workers)
        batons.initialize(repeating: stress_baton(), count: workers)
        // Spinning for the token only pays when every worker can have a CPU
        // of its own; on fewer, a spinning waiter takes the holder's CPU and a
        // hand-off costs a time slice. There a waiter yields its CPU a few
        // times before it parks: still runnable, it needs no wake-up in the
        // kernel, which halves a hand-off's cost or better (the figures are
        // in CStressSupport's shim.c, at stress_baton_wait).
        let cpus = Int(stress_usable_cpus())
        spins = cpus > 1 && threads <= cpus ? 2_000 : 0
        yields = spins == 0 ? 4 : 0
    }

    deinit {
        currentOperation.deallocate()
        UnsafeMutableRawPointer(batons).deallocate()
        line.deallocate()
        runnableLists.deallocate()
    }

    // The fields that live on the decision line (reached through pointers:
    // no exclusivity checks, as for the fields above).
    var stateLock: UnsafeMutablePointer<Atomic<Bool>> { line.stateLock }
    var token: UnsafeMutablePointer<Atomic<Int>> { line.token }
    var decisionMark: UnsafeMutablePointer<Atomic<Int>> { line.decisionMark }
    /// The decision at which each worker last ran (for first come, first served).
    var lastRan: UnsafeMutablePointer<Int> { line.lastRan }
    /// Every decision so far.
    var log: DecisionLog {
        _read { yield line.counters.pointee.log }
        _modify { yield &line.counters.pointee.log }
    }
    /// The events so far, for a failure's trace.
    var trace: TraceRing {
        _read { yield line.counters.pointee.trace }
        _modify { yield &line.counters.pointee.trace }
    }
    /// Where the current decision is made (for exploration's footprints).
    var decidingAt: UInt8 {
        _read { yield line.counters.pointee.decidingAt }
        _modify { yield &line.counters.pointee.decidingAt }
    }
    /// Points passed since any worker last ended an operation.
    var sinceOperationEnd: Int {
        _read { yield line.counters.pointee.sinceOperationEnd }
        _modify { yield &line.counters.pointee.sinceOperationEnd }
    }
    /// Points passed by the holder since it got the token.
    var sinceSwitch: Int {
        _read { yield line.counters.pointee.sinceSwitch }
        _modify { yield &line.counters.pointee.sinceSwitch }
    }

    /// The trial's control, to stop it once the decisions run out.
    func attach(_ control: TrialControl) { self.control = control }

    /// Whether control has ended (the trial stopped with workers left
    /// blocked): the primitives then take their ordinary paths.
    var isReleased: Bool { released.load(ordering: .acquiring) }

    // MARK: - Lifecycle

    /// Worker `me` reaches the start: the last to arrive makes the first
    /// decision. Returns once `me` holds the token.
    func arrive(_ me: Int) {
        lockState()
        arrived += 1
        if arrived == participants {
            decidingAt = Self.decidedAtArrival
            for w in 0..<workers { status[w] = participating[w] ? .runnable : isQueueWorker(w) ? .idle : .finished }
            if mainSlot >= 0 { status[mainSlot] = mainPending > 0 ? .runnable : .idle }
            pass(to: decide(current: -1))
        }
        unlockState()
        waitForTurn(me)
    }

    /// Worker `me` leaves its loop: the token goes to the next worker.
    func depart(_ me: Int) {
        lockState()
        defer { unlockState() }
        guard holdsToken(me) else { return }
        status[me] = .finished
        decidingAt = Self.decidedAtDeparture
        switchAway(from: me, park: false)
    }

    // MARK: - Scheduling points

    var ownsSchedule: Bool { true }

    func point(_ worker: Int) { point(worker, at: .user) }

    func point(_ worker: Int, at point: FuzzPoint) { self.point(worker, at: point, detail: -1) }

    func point(_ worker: Int, at point: FuzzPoint, detail: Int) {
        lockState()
        guard holdsToken(worker) else { return unlockState() }
        notePoint(worker, point, detail: detail)
        // The engine's own points (an operation's start and its steps carry
        // their index) are told apart from the primitives' and the user's.
        let engine = detail >= 0 || detail == Self.enginePoint
        decidingAt = UInt8(truncatingIfNeeded: point.rawValue) | (engine ? Self.engineBit : 0)
        sinceSwitch &+= 1
        if point == .operationEnd {
            sinceOperationEnd = 0
        } else {
            sinceOperationEnd &+= 1
            if sinceOperationEnd == Self.livelockLimit { reportLivelock(worker) }
        }
        let next = decide(current: worker)
        // A bare point's place is for its switch only.
        if point == .user, locations[worker].file != nil || locations[worker].label != nil { locations[worker] = TraceRing.Location() }
        guard next != worker else { return unlockState() }
        // The token goes to `next`, which is woken (when parked) only once
        // the state lock is let go: woken under the lock, on one CPU the
        // woken worker ran at once, found the lock still held by the worker
        // it preempted, and could only yield back (two more context
        // switches a hand-off). Nor is the lock taken back after the wait,
        // only to be let go at once: the worker returns as soon as it holds
        // the token again.
        token.pointee.store(next, ordering: .releasing)
        stress_baton_count(batons + next)
        unlockState()
        stress_baton_wake(batons + next)
        waitForTurn(worker)
    }

    /// Under the state lock: gives the token to `next` and waits until `me`
    /// holds it again, then takes the lock back (a worker that blocks in the
    /// model, at a barrier or on a resource, goes on under the lock). As at
    /// a point, `next` is woken only once the lock is let go, so that on one
    /// CPU it does not run at once into the lock `me` still holds.
    func handOff(from me: Int, to next: Int) {
        token.pointee.store(next, ordering: .releasing)
        stress_baton_count(batons + next)
        unlockState()
        stress_baton_wake(batons + next)
        waitForTurn(me)
        lockState()
    }

    func pointInTask(_ worker: Int) async {}
    func count() {}
    func beginMeasuredWindow(board: SiteBoard, settings: TrialSettings, scenario: Bool) {}
}
