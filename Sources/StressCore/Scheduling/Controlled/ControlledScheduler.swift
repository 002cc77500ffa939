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
/// control ends and the workers run free to their ends.
///
/// Every mutable field is read and written only by the thread that holds the
/// token, and the token passes with a release store that the next holder
/// reads with an acquire load, so each holder sees everything the one before
/// it wrote; that is why a class with plain fields is safe here.
final class ControlledScheduler: FuzzCoordinator, @unchecked Sendable {
    // @unchecked: the fields below are touched only by the token's holder,
    // one thread at a time, each hand-off a release/acquire pair (see above).

    /// What a worker is doing, in the scheduler's eyes.
    enum Status: UInt8 {
        /// Not at the start yet.
        case absent
        /// May run when chosen.
        case runnable
        /// Waits for a resource of the model (``waitKey``) to free.
        case blocked
        /// Waits on a condition (``waitKey``) to be signalled.
        case waiting
        /// Waits on a condition, with a deadline (virtual: it passes when
        /// nothing else can run).
        case timedWaiting
        /// Left its loop.
        case finished
    }

    let workers: Int
    private var policy: any ExecutionScheduler
    /// A fresh policy for each epoch of ``epochLength`` decisions: a long
    /// trial is many executions as PCT counts them (new priorities, new
    /// change points), not one whose change points all fall in its first
    /// moments.
    private let makePolicy: (_ epoch: UInt64) -> any ExecutionScheduler
    static let epochLength = Int(SchedulingDraws.pctHorizon)
    private var status: [Status]
    private var waitKey: [UInt64]
    /// When each waiter began to wait (for first-in, first-out signals).
    private var waitSequence: [UInt64]
    /// Set for a timed waiter whose deadline passed rather than a signal.
    private var timedOut: [Bool]
    /// The decision at which each worker last ran (for first come, first served).
    private var lastRan: [Int]
    private var sequence: UInt64 = 0
    /// The shadow model of every resource the workers take.
    var resources = ShadowResources()
    private var runnable: [Int]
    private(set) var log: DecisionLog
    private let forced: [Int]?
    private var diverged = false
    private let maxDecisions: Int
    private var control: TrialControl?
    /// Called once, with the stuck workers, when every live worker is blocked.
    private let onDeadlock: @Sendable (_ stuck: [Int], _ schedule: ScheduleRecord) -> Void
    private var holder = -1
    /// Spurious wake-ups: their probability per decision, the seeded stream
    /// that draws them, and which waiters wait on a condition (the only
    /// waits that may end without a signal).
    private let spuriousProbability: Double
    private var spuriousDraws: SplitMix64
    private var onCondition: [Bool]
    /// A scenario's barriers: arrivals so far and the last decision.
    private var meetings: [(key: UInt64, arrived: Int, decision: Int)] = []
    /// Whether rounds, not counts of decisions, delimit the executions.
    private var roundEpochs = false
    private var deadlockReported = false
    /// Points passed since any worker last ended an operation, and by the
    /// holder since it got the token. A holder that passes ``spinLimit``
    /// points while nobody ends anything is taken to spin (on a flag, a
    /// `try` loop) and another worker is picked, as Lincheck switches away
    /// from a spinning thread; past ``livelockLimit`` it is a livelock.
    private var sinceOperationEnd = 0
    private var sinceSwitch = 0
    static let spinLimit = 64
    static let livelockLimit = 100_000
    /// Called once when no operation ends for ``livelockLimit`` points.
    var onLivelock: (@Sendable (_ worker: Int, _ points: Int, _ schedule: ScheduleRecord) -> Void)?

    // The shared words: the token, the arrivals and the batons.
    private let token = Atomic<Int>(-1)
    private let arrivals = Atomic<Int>(0)
    private let released = Atomic<Bool>(false)
    private let batons: UnsafeMutablePointer<stress_baton>
    private let spins: Int

    /// A scheduler for `workers` thread workers, deciding by `policy` (or
    /// following `forced` first), making at most `maxDecisions` decisions
    /// before it stops the trial.
    init(workers: Int, policy makePolicy: @escaping (_ epoch: UInt64) -> any ExecutionScheduler, forced: [Int]?, maxDecisions: Int,
         spuriousWakeups: Double = 0, seed: UInt64 = 0,
         onDeadlock: @escaping @Sendable (_ stuck: [Int], _ schedule: ScheduleRecord) -> Void) {
        spuriousProbability = spuriousWakeups
        spuriousDraws = SplitMix64(seed: SplitMix64.derive(seed, 0x5_9021_0A5))
        onCondition = Array(repeating: false, count: workers)
        self.workers = workers
        self.makePolicy = makePolicy
        policy = makePolicy(0)
        self.forced = forced
        self.maxDecisions = maxDecisions
        self.onDeadlock = onDeadlock
        status = Array(repeating: .absent, count: workers)
        waitKey = Array(repeating: 0, count: workers)
        waitSequence = Array(repeating: 0, count: workers)
        timedOut = Array(repeating: false, count: workers)
        lastRan = Array(repeating: -1, count: workers)
        runnable = []
        runnable.reserveCapacity(workers)
        log = DecisionLog(capacity: maxDecisions)
        batons = .allocate(capacity: workers)
        batons.initialize(repeating: stress_baton(), count: workers)
        // Spinning for the token only pays when every worker can have a CPU
        // of its own; on fewer, a spinning waiter takes the holder's CPU and a
        // hand-off costs a time slice, so waiters park at once.
        let cpus = Int(stress_usable_cpus())
        spins = cpus > 1 && workers <= cpus ? 2_000 : 0
    }

    deinit { batons.deallocate() }

    /// The trial's control, to stop it once the decisions run out.
    func attach(_ control: TrialControl) { self.control = control }

    /// Whether control has ended (the trial stopped with workers left
    /// blocked): the primitives then take their ordinary paths.
    var isReleased: Bool { released.load(ordering: .acquiring) }

    // MARK: - Lifecycle

    /// Worker `me` reaches the start: the last to arrive makes the first
    /// decision. Returns once `me` holds the token.
    func arrive(_ me: Int) {
        // Only the last to arrive writes: it makes everyone runnable.
        if arrivals.add(1, ordering: .acquiringAndReleasing).newValue == workers {
            for w in 0..<workers { status[w] = .runnable }
            let first = decide(current: -1)
            pass(to: first)
        }
        awaitToken(me)
    }

    /// Worker `me` leaves its loop: the token goes to the next worker.
    func depart(_ me: Int) {
        guard !isReleased else { return }
        status[me] = .finished
        switchAway(from: me, park: false)
    }

    // MARK: - Scheduling points

    var ownsSchedule: Bool { true }

    func point(_ worker: Int) { point(worker, at: .user) }

    func point(_ worker: Int, at point: FuzzPoint) {
        guard !isReleased, holder == worker else { return }
        sinceSwitch &+= 1
        if point == .operationEnd {
            sinceOperationEnd = 0
        } else {
            sinceOperationEnd &+= 1
            if sinceOperationEnd == Self.livelockLimit { reportLivelock(worker) }
        }
        let next = decide(current: worker)
        if next != worker {
            pass(to: next)
            awaitToken(worker)
        }
    }

    func pointInTask(_ worker: Int) async {}
    func count() {}
    func beginMeasuredWindow(board: SiteBoard, settings: TrialSettings, scenario: Bool) {}
    /// A scenario's round begins (told by the worker that decided at the
    /// round barrier, holding the token): each round is an execution of its
    /// own, with a fresh policy (new PCT priorities and change points).
    func beginRound(_ round: Int) {
        roundEpochs = true
        policy = makePolicy(UInt64(round) &+ 1 << 32)
    }

    /// The keys of a scenario's two barriers in the model.
    static let rolesBarrier: UInt64 = 0xBA22_1E20_0000_0001
    static let arbitrationBarrier: UInt64 = 0xBA22_1E20_0000_0002

    /// Worker `me` meets the others at barrier `key` of `parties`: the last
    /// to arrive runs `decide` and wakes the rest, who are blocked there in
    /// the model meanwhile. Returns the decision (0 once control has ended:
    /// the round loop then ends).
    func meet(_ me: Int, at key: UInt64, parties: Int, decide: () -> Int) -> Int {
        guard !isReleased else { return 0 }
        let i = meetings.firstIndex { $0.key == key } ?? {
            meetings.append((key, 0, 0))
            return meetings.count - 1
        }()
        meetings[i].arrived += 1
        if meetings[i].arrived == parties {
            meetings[i].arrived = 0
            meetings[i].decision = decide()
            signal(key, all: true)
            return meetings[i].decision
        }
        guard block(me, on: key, as: .waiting) else { return 0 }
        return meetings[i].decision
    }


    // MARK: - Blocking

    /// `me` cannot go on until `key` frees (``Status/blocked``) or until a
    /// signal (``Status/waiting``, ``Status/timedWaiting``): the token goes
    /// to another worker. Returns when `me` runs again; false when control
    /// ended meanwhile (the caller then uses the primitive's own blocking).
    func block(_ me: Int, on key: UInt64, as kind: Status) -> Bool {
        guard !isReleased else { return false }
        status[me] = kind
        waitKey[me] = key
        sequence &+= 1
        waitSequence[me] = sequence
        timedOut[me] = false
        switchAway(from: me, park: true)
        return !isReleased
    }

    /// Whether `me`'s last timed wait ended by its deadline.
    func timedOut(_ me: Int) -> Bool { timedOut[me] }

    /// Makes runnable the workers blocked on `key` (a resource freed), or
    /// every blocked one (nil).
    func wakeAll(blockedOn key: UInt64?) {
        for w in 0..<workers where status[w] == .blocked && (key == nil || waitKey[w] == key) {
            status[w] = .runnable
        }
    }

    /// Wakes the longest waiter on condition `key`, or every one.
    func signal(_ key: UInt64, all: Bool) {
        if all {
            for w in 0..<workers where (status[w] == .waiting || status[w] == .timedWaiting) && waitKey[w] == key {
                status[w] = .runnable
            }
            return
        }
        var chosen = -1
        for w in 0..<workers where (status[w] == .waiting || status[w] == .timedWaiting) && waitKey[w] == key {
            if chosen < 0 || waitSequence[w] < waitSequence[chosen] { chosen = w }
        }
        if chosen >= 0 { status[chosen] = .runnable }
    }

    // MARK: - Escapes

    /// What ran where the scheduler could not see it (any thread may add).
    private let escapes = Mutex<[String]>([])

    /// Notes work that escaped control; the first few distinct ones are kept.
    func noteEscape(_ what: String) {
        escapes.withLock { list in
            if list.count < 8 && !list.contains(what) { list.append(what) }
        }
    }

    // MARK: - Decisions

    /// The record of the decisions so far.
    func record() -> ScheduleRecord {
        let escaped = escapes.withLock { $0 }
        return ScheduleRecord(mode: .controlled, decisions: log.count, encoded: log.encoded,
                              controlled: escaped.isEmpty ? .full : .partial, escapes: escaped.isEmpty ? nil : escaped)
    }

    /// The next worker to run, after `current` passed a point (-1: the
    /// first decision). Never empty-handed: the caller made sure someone can run.
    private func decide(current: Int) -> Int {
        if spuriousProbability > 0 { maybeWakeSpuriously() }
        runnable.removeAll(keepingCapacity: true)
        var oldest = -1
        for w in 0..<workers where status[w] == .runnable {
            runnable.append(w)
            if oldest < 0 || lastRan[w] < lastRan[oldest] { oldest = w }
        }
        let index = log.count
        if !roundEpochs && index > 0 && index % Self.epochLength == 0 { policy = makePolicy(UInt64(index / Self.epochLength)) }
        var chosen: Int
        if let forced, !diverged, index < forced.count {
            chosen = forced[index]
            if !(0..<workers).contains(chosen) || status[chosen] != .runnable {
                diverged = true
                chosen = policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
            }
        } else {
            chosen = policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
            // A holder that keeps passing points while no operation ends
            // anywhere is spinning: let another run.
            if chosen == current, sinceSwitch >= Self.spinLimit, sinceOperationEnd >= Self.spinLimit, runnable.count > 1 {
                runnable.removeAll { $0 == current }
                oldest = runnable.min { lastRan[$0] < lastRan[$1] } ?? runnable[0]
                chosen = policy.nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
            }
        }
        if chosen != current { sinceSwitch = 0 }
        lastRan[chosen] = index
        log.append(chosen)
        if log.count == maxDecisions { control?.enter(TrialControl.stop) }
        return chosen
    }

    /// `me` cannot or will not run on (blocked, or finished): the token goes
    /// to the policy's choice among the runnable workers. When nobody can
    /// run: a timed waiter's deadline passes; else, if the trial is stopping,
    /// control ends; else it is a deadlock, reported now.
    private func switchAway(from me: Int, park: Bool) {
        while !(0..<workers).contains(where: { status[$0] == .runnable }) {
            if let late = earliestTimedWaiter() {
                status[late] = .runnable
                timedOut[late] = true
                continue
            }
            let live = (0..<workers).filter { status[$0] != .finished && status[$0] != .absent }
            if live.isEmpty { return }
            if control?.current == TrialControl.stop {
                release()
                return
            }
            reportDeadlock(stuck: live)
            // The report ends the trial; the stuck workers stay stuck, as
            // they would without control.
            if park { while true { parkForever(me) } }
            return
        }
        let next = decide(current: me)
        if next == me { return }
        pass(to: next)
        if park { awaitToken(me) }
    }

    /// Hands the deadlock's report on, once.
    func reportDeadlock(stuck: [Int]) {
        guard !deadlockReported else { return }
        deadlockReported = true
        onDeadlock(stuck, record())
    }

    /// No operation ended for ``livelockLimit`` points: reported once, and
    /// `worker` (the one spinning now) stays parked, as a spinning thread
    /// would never get on.
    private func reportLivelock(_ worker: Int) {
        guard !deadlockReported, let onLivelock else { return }
        deadlockReported = true
        onLivelock(worker, Self.livelockLimit, record())
        while true { parkForever(worker) }
    }

    /// Parks `me` for good (a worker of a deadlock: nobody will pass it the token).
    func parkForever(_ me: Int) {
        awaitToken(me)
        if isReleased { MonotonicClock.sleep(nanoseconds: 1_000_000_000) }
    }

    /// With the seeded probability, wakes the longest waiter on a condition
    /// with no signal.
    private func maybeWakeSpuriously() {
        guard Double(spuriousDraws.next() >> 11) * 0x1p-53 < spuriousProbability else { return }
        var chosen = -1
        for w in 0..<workers where onCondition[w] && (status[w] == .waiting || status[w] == .timedWaiting) {
            if chosen < 0 || waitSequence[w] < waitSequence[chosen] { chosen = w }
        }
        if chosen >= 0 { status[chosen] = .runnable }
    }

    /// Marks `me`'s coming wait as one on a condition (spurious wake-ups may end it).
    func waitsOnCondition(_ me: Int, _ yes: Bool) { onCondition[me] = yes }

    private func earliestTimedWaiter() -> Int? {
        var chosen: Int?
        for w in 0..<workers where status[w] == .timedWaiting {
            if chosen == nil || waitSequence[w] < waitSequence[chosen!] { chosen = w }
        }
        return chosen
    }

    // MARK: - The token

    private func pass(to next: Int) {
        holder = next
        token.store(next, ordering: .releasing)
        stress_baton_pass(batons + next)
    }

    private func awaitToken(_ me: Int) {
        let baton = batons + me
        while token.load(ordering: .acquiring) != me && !released.load(ordering: .acquiring) {
            let seen = stress_baton_turn(baton)
            if token.load(ordering: .acquiring) == me || released.load(ordering: .acquiring) { break }
            stress_baton_wait(baton, seen, Int32(spins))
        }
    }

    /// Ends control: every worker runs free from here (the primitives take
    /// their ordinary paths), and those parked are woken.
    private func release() {
        released.store(true, ordering: .releasing)
        for w in 0..<workers { stress_baton_pass(batons + w) }
    }
}
