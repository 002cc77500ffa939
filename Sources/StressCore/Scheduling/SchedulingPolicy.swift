/// A way of scheduling a trial's workers, known by the name a plan's `fuzz`
/// key and `--fuzz` give (`off`, `light`, `yield`, `chaos`, `pct`,
/// `portfolio`, or one a team registers).
///
/// One policy serves every place the harness decides who runs:
/// - the fuzz points of thread workers run the perturbations of its
///   ``configure(_:)`` preset, and meet at its ``makeCoordinator(board:settings:seed:)``
///   when they must agree across workers (PCT's priorities);
/// - the harness executor asks its ``makeScheduler(settings:seed:workers:)``
///   which worker's job runs next.
///
/// The engine and its drivers know only this protocol: a policy registers by
/// name (``StressRegistry/register(policy:)``), as a strategy does, and the
/// trial finds it through ``SchedulingPolicies``. A policy is a description
/// (no state): everything one execution needs lives in what it makes.
package protocol SchedulingPolicy: Sendable {
    /// The name plans, `--fuzz`, the records' `fuzz` field and CSV column
    /// use. Names are a contract: a shipped one never changes.
    var name: String { get }

    /// Sets the perturbations this policy starts from (probabilities, bounds,
    /// PCT depth) on settings that have none; a plan can tune any of them
    /// afterwards. ``FuzzSettings/init(_:)`` calls it.
    func configure(_ settings: inout FuzzSettings)

    /// The policies the repetitions of an experiment take turns with, in
    /// order (a portfolio), or empty when every repetition runs this one.
    var rotation: [FuzzProfile] { get }

    /// A fresh scheduler for one execution of `workers` workers (Shuttle's
    /// "new execution"): it picks the next worker among the runnable ones.
    func makeScheduler(settings: FuzzSettings, seed: UInt64, workers: Int) -> any ExecutionScheduler

    /// What the thread workers' fuzz points share, or nil when each point
    /// decides alone (the default, unless the settings ask for PCT).
    func makeCoordinator(board: SiteBoard, settings: FuzzSettings, seed: UInt64) -> (any FuzzCoordinator)?

    /// The warm-up a trial needs before its measured window so that the
    /// coordinator can calibrate itself (0: none).
    func calibrationWarmupNs(for settings: FuzzSettings) -> UInt64
}

extension SchedulingPolicy {
    var rotation: [FuzzProfile] { [] }

    /// Soft PCT whenever the settings give a PCT depth, whatever the
    /// policy: a plan can add `pct_depth` to any profile.
    func makeCoordinator(board: SiteBoard, settings: FuzzSettings, seed: UInt64) -> (any FuzzCoordinator)? {
        settings.pctDepth > 0 ? SoftPCT(board: board, settings: settings, seed: seed) : nil
    }

    func calibrationWarmupNs(for settings: FuzzSettings) -> UInt64 {
        settings.pctDepth > 0 ? SoftPCT.warmupNs : 0
    }
}

/// One execution's scheduling decisions: which runnable worker goes next,
/// and whether it is first delayed. Pure and seeded: the same runnable sets
/// in the same order get the same answers, which is what makes an execution
/// replayable. The harness executor holds one under its lock.
package protocol ExecutionScheduler {
    /// The worker that runs next, among `runnable` (ascending worker
    /// indices, never empty; index `workers` is the queue of jobs from
    /// outside the workers). `oldest` is the runnable worker that has waited
    /// longest; `parallel` is false when only one worker runs at a time (the
    /// deterministic executor), where nothing may depend on `now`.
    mutating func nextWorker(among runnable: [Int], oldest: Int, now: UInt64, parallel: Bool) -> Int

    /// The same under controlled scheduling, where a worker blocked in a
    /// timed wait (`waiter`, the one whose virtual deadline comes first) is a
    /// candidate too: returning `waiter` means its wait times out now, while
    /// one of `runnable` could have run. By default a wait never times out
    /// this way (first come, first served: only when nothing else can run);
    /// a policy that returns `waiter` should do so rarely, as a deadline
    /// passing before the work it waits for is done is the rare case.
    mutating func nextWorker(among runnable: [Int], orTimeOut waiter: Int, oldest: Int) -> Int

    /// A delay before `worker` runs (free-running parallel executor only: one
    /// at a time, a delay changes nothing but the wall time).
    mutating func delay(for worker: Int, now: UInt64) -> Perturbation

    /// Told, before its first pick, how many picks the execution is expected
    /// to take (its measured length, or the best guess yet), so that a
    /// policy that spreads choices over the execution (PCT's change points)
    /// spreads them over the picks that happen. Called only under
    /// controlled scheduling, where the length can be measured; by default
    /// ignored.
    mutating func expectLength(_ picks: Int)

    /// Told, under controlled scheduling, that workers `first..<first+count`
    /// are queue workers (they run blocks submitted with `async`; they come
    /// after the trial's workers and the main thread, whose index is the
    /// harness executor's queue of outside jobs): a policy that ranks
    /// workers ranks them too. By default ignored.
    mutating func admitQueueWorkers(first: Int, count: Int)
    /// Becomes, in place, the scheduler its policy makes for a new execution
    /// with `seed` (the same settings and workers), keeping its storage, and
    /// returns true; or returns false, changed in no way, when it cannot
    /// (the default), and the caller makes a new one. A controlled scenario
    /// starts an execution every round: made anew, a scheduler was an
    /// existential's box and its arrays, allocated and freed every round
    /// under the scheduler's lock. One that restarts must then decide
    /// exactly as a new one would, or a seed's schedules would change; and
    /// since a restart stands for the policy's `makeScheduler` with the new
    /// seed, a scheduler may restart only if its policy makes the same kind
    /// of scheduler, configured the same, for every seed.
    mutating func restart(seed: UInt64) -> Bool
}

extension ExecutionScheduler {
    mutating func nextWorker(among runnable: [Int], orTimeOut waiter: Int, oldest: Int) -> Int {
        nextWorker(among: runnable, oldest: oldest, now: 0, parallel: false)
    }

    mutating func delay(for worker: Int, now: UInt64) -> Perturbation { .none }

    mutating func admitQueueWorkers(first: Int, count: Int) {}

    mutating func expectLength(_ picks: Int) {}

    mutating func restart(seed: UInt64) -> Bool { false }
}

/// Where the thread and task workers' fuzz points meet when a policy needs
/// them to agree (soft PCT's priorities). A class: every worker of a trial
/// holds the same one.
package protocol FuzzCoordinator: AnyObject, Sendable {
    /// Worker `worker`, on its own OS thread, at a fuzz point: it may be held
    /// here while others run.
    func point(_ worker: Int)

    /// The same, saying which point it is (a controlled scheduler counts an
    /// operation's end as progress); by default, ``point(_:)``.
    func point(_ worker: Int, at point: FuzzPoint)

    /// The same, with the operation that starts or the step that comes
    /// next (`detail`), which a controlled scheduler's trace names; by
    /// default, ``point(_:at:)``.
    func point(_ worker: Int, at point: FuzzPoint, detail: Int)

    /// The same for a task worker: it is held by suspending, never by
    /// blocking its pool thread.
    func pointInTask(_ worker: Int) async

    /// A fuzz point where the worker must not be held (inside an actor's
    /// isolated region, where others would need the thread it blocks).
    func count()

    /// Just before the measured window: `scenario` is true for a trial of
    /// rounds (see ``beginRound(_:)``).
    func beginMeasuredWindow(board: SiteBoard, settings: TrialSettings, scenario: Bool)

    /// A scenario's round `round` begins (called by the one worker that
    /// decides at the round barrier, while the others wait there).
    func beginRound(_ round: Int)

    /// True when the coordinator runs one worker at a time and decides every
    /// switch itself (controlled scheduling): the fuzz points then only ask
    /// it, with no pause of their own, which would change nothing but the
    /// time taken. Asked once, when a worker's fuzzer is made: it never
    /// changes for a coordinator.
    var ownsSchedule: Bool { get }
}

extension FuzzCoordinator {
    var ownsSchedule: Bool { false }

    func point(_ worker: Int, at point: FuzzPoint) { self.point(worker) }

    func point(_ worker: Int, at point: FuzzPoint, detail: Int) { self.point(worker, at: point) }
}
