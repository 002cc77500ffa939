import CStressSupport
import Glibc
import Synchronization

/// The harness's task executor: the jobs of a trial's worker tasks, one queue
/// per worker, run by threads of the harness's own, which at every job
/// boundary ask the trial's scheduling policy (its ``ExecutionScheduler``)
/// which job runs next (see ``ExecutorChoice``).
///
/// Each worker task prefers its own ``WorkerExecutor`` (SE-0417), a facade
/// that hands its jobs here tagged with the worker: so the harness knows
/// whose job it runs, and the watchdog knows which workers have a job
/// running, queued, sleeping, or none at all (suspended in an `await`).
///
/// `Task.sleep` arrives as a timed job (the SPI `SchedulingExecutor`): on
/// the parallel executor it waits for real; on the deterministic one time is
/// virtual and jumps to the next deadline whenever nothing is ready or running.
final class JobScheduler: @unchecked Sendable {
    // @unchecked: every field below the lock is read and written only while
    // holding `lock` (a pthread mutex with its condition); that is the
    // executor's own synchronization, as the global executor has its own.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// One queued job: its enqueue number orders first come, first served.
    private struct Queued { var sequence: UInt64; var job: UnownedJob }
    /// A `Task.sleep`: due at `due` (monotonic ns, or virtual ns when deterministic).
    private struct Timed { var due: UInt64; var sequence: UInt64; var worker: Int; var job: UnownedJob }

    let deterministic: Bool
    let workers: Int
    private(set) var facades: [WorkerExecutor] = []
    private var queues: [[Queued]]
    private var heads: [Int]
    private var timers: [Timed] = []
    private var sequence: UInt64 = 0
    private var policy: any ExecutionScheduler
    /// When each worker's running job started (0: none runs), and which job
    /// that is (its number in `started`).
    private var running: [UInt64]
    private var runningJob: [UInt64]
    private var started: UInt64 = 0
    private var jobsRun: [UInt64]
    private var runningCount = 0
    private var held = false
    /// Threads waiting for a job: an enqueue wakes one only when there is one
    /// (a signal with no waiter still costs a call per job).
    private var idle = 0
    private var stopping = false
    private var virtualNow: UInt64 = 0
    private var readyScratch: [Int] = []
    private var threads: [OSThread] = []
    /// The CPU-time clock of the deterministic executor's one thread (0
    /// until it has started; see `stress_thread_cpu_clock`), and its kernel
    /// thread id (0 until then).
    private var threadCpuClock: UInt64 = 0
    private var threadId: UInt64 = 0
    /// How long the deterministic executor has had nothing to do (no job
    /// running or ready, no sleep pending, not held), and since when it has
    /// now (0: it has work). Its thread's CPU time plus this is the
    /// executor's own clock (``DeterministicExecutorState``).
    private var idleNs: UInt64 = 0
    private var idleSince: UInt64 = 0
    /// Figures for the record.
    private(set) var stats = ExecutorStats()

    /// A scheduler for `workers` worker tasks, on `threads` threads of its own
    /// (one when `deterministic`).
    init(workers: Int, threads threadCount: Int, deterministic: Bool, fuzz: FuzzSettings, seed: UInt64) {
        self.workers = workers
        self.deterministic = deterministic
        // One queue per worker, and one more for jobs from the global
        // executor (deterministic trials, ``GlobalEnqueueHook``).
        queues = Array(repeating: [], count: workers + 1)
        heads = Array(repeating: 0, count: workers + 1)
        running = Array(repeating: 0, count: workers)
        runningJob = Array(repeating: 0, count: workers)
        jobsRun = Array(repeating: 0, count: workers)
        policy = SchedulingPolicies.policy(for: fuzz.profile).makeScheduler(settings: fuzz, seed: seed, workers: workers)
        readyScratch.reserveCapacity(workers)
        pthread_mutex_init(lock, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wake, &attributes)
        pthread_condattr_destroy(&attributes)
        facades = (0..<workers).map { WorkerExecutor(scheduler: self, worker: $0) }
        let count = deterministic ? 1 : max(1, threadCount)
        stats.threads = count
        threads = (0..<count).compactMap { _ in OSThread.spawn { [self] in serve() } }
    }

    deinit {
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        wake.deallocate()
    }

    /// Lets the threads end once the queues are empty, and waits for them.
    /// Jobs still queued or sleeping then (a task that never finished) are
    /// abandoned with the trial.
    func shutDown() {
        locked { stopping = true; pthread_cond_broadcast(wake) }
        for thread in threads { thread.join() }
        threads = []
    }

    /// While held, no job starts: the coordinator holds the executor while it
    /// resumes every worker at a barrier, so the deterministic executor sees
    /// the whole batch before it chooses. The deterministic executor first
    /// lets the running job end: a worker counts as arrived at a barrier a
    /// moment before its task has suspended, and a resume in that moment
    /// would let it run on in the same job instead of as a job of the batch,
    /// which the seed does not decide.
    func hold(_ body: () -> Void) {
        locked {
            held = true
            endIdle()
            while deterministic && runningCount > 0 { pthread_cond_wait(wake, lock) }
        }
        body()
        locked { held = false; pthread_cond_broadcast(wake) }
    }

    /// A job of worker `worker`'s task, ready now.
    func submit(_ job: UnownedJob, worker: Int) {
        locked {
            sequence &+= 1
            queues[worker].append(Queued(sequence: sequence, job: job))
            endIdle()
            stats.jobs &+= 1
            if idle > 0 { pthread_cond_signal(wake) }
        }
    }

    /// The virtual clock's resolution. `Task.sleep` hands the executor a
    /// deadline on the real clock, so the delay it is due after comes out a
    /// little short, by however long the sleep took to reach the executor
    /// (longer when the machine is loaded); rounded up to whole milliseconds,
    /// and never less than one, it is the same number every run for any sleep
    /// of at most 1 ms or of whole milliseconds (a sleep of 50 µs or 1 ms is
    /// due 1 ms later; ties run in enqueue order). A sleep with a fraction of
    /// a millisecond above one may round either way when the thread stalls
    /// for longer than that fraction (docs/async.md).
    static let virtualResolutionNs: UInt64 = 1_000_000

    /// A job sent to the global executor while this trial runs: a
    /// deterministic trial runs it on its one thread; a parallel one only
    /// counts it, and `original` sends it on to the global executor.
    func submitGlobal(_ job: UnownedJob, original: GlobalEnqueueHook.Original) {
        guard deterministic else {
            locked { stats.globalJobs = (stats.globalJobs ?? 0) &+ 1 }
            original(job)
            return
        }
        locked {
            sequence &+= 1
            queues[workers].append(Queued(sequence: sequence, job: job))
            endIdle()
            stats.globalJobs = (stats.globalJobs ?? 0) &+ 1
            if idle > 0 { pthread_cond_signal(wake) }
        }
    }

    /// A job of worker `worker`'s task, due after `delayNs`.
    func submit(_ job: UnownedJob, worker: Int, afterNs delayNs: UInt64) {
        locked {
            sequence &+= 1
            let q = Self.virtualResolutionNs
            let due = deterministic ? virtualNow &+ max(1, (delayNs + q - 1) / q) * q : MonotonicClock.now() &+ delayNs
            timers.append(Timed(due: due, sequence: sequence, worker: worker, job: job))
            endIdle()
            stats.timedJobs &+= 1
            if idle > 0 { pthread_cond_signal(wake) }
        }
    }

    /// What the watchdog needs to know of worker `w`'s task.
    func activity(of w: Int) -> WorkerActivity {
        locked {
            WorkerActivity(queued: queues[w].count - heads[w], runningSinceNs: running[w] == 0 ? nil : running[w],
                           sleeping: timers.contains { $0.worker == w }, jobsRun: jobsRun[w],
                           runningJob: running[w] == 0 ? nil : runningJob[w])
        }
    }

    /// What the watchdog needs to know of the deterministic executor's one
    /// thread (nil on the parallel executor): which job holds it, and its
    /// CPU-time clock.
    func deterministicState() -> DeterministicExecutorState? {
        guard deterministic else { return nil }
        let (job, idle, clock, thread, wall) = locked {
            let now = MonotonicClock.now()
            return (runningCount > 0 ? started : nil, idleNs &+ (idleSince == 0 ? 0 : now &- idleSince), threadCpuClock, threadId, now)
        }
        // The thread's CPU time, read outside the lock (a system call).
        return DeterministicExecutorState(runningJob: job, idleNs: idle, cpuNs: stress_cpu_clock_ns(clock), threadId: thread, wallNs: wall)
    }

    // MARK: - The threads

    private func serve() {
        pthread_mutex_lock(lock)
        if deterministic {
            threadCpuClock = stress_thread_cpu_clock()
            threadId = stress_thread_id()
        }
        while true {
            releaseDueTimers()
            if !held, let w = nextWorker() {
                let job = dequeue(w)
                let now = MonotonicClock.now()
                let delay = deterministic ? .none : policy.delay(for: w, now: now)
                let global = w == workers
                started &+= 1
                let mine = started
                if !global {
                    running[w] = now
                    runningJob[w] = mine
                }
                runningCount += 1
                pthread_mutex_unlock(lock)
                if delay != .none { Fuzzer.perform(delay) }
                job.runSynchronously(on: global ? globalConcurrentExecutor.asUnownedTaskExecutor() : facades[w].asUnownedTaskExecutor())
                pthread_mutex_lock(lock)
                if !global {
                    // A job that suspends enqueues its task's next job before
                    // it returns here, and another thread may already run that
                    // one: then it, not this one, is the worker's running job
                    // (clearing it made a job that never returned look like a
                    // task suspended with nothing to resume it: a false
                    // deadlock in place of a hang).
                    if runningJob[w] == mine { running[w] = 0 }
                    jobsRun[w] &+= 1
                }
                runningCount -= 1
                if held { pthread_cond_broadcast(wake) }
                if delay != .none { stats.delayedJobs &+= 1 }
                continue
            }
            if stopping && !hasReady { break }
            if deterministic, !held, !hasReady, runningCount == 0, let due = timers.map(\.due).min() {
                // Nothing can happen before the next sleep ends: jump to it.
                virtualNow = max(virtualNow, due)
                continue
            }
            // Nothing to do: the deterministic executor is idle until work
            // arrives (whoever brings it ends the idle span, so a thread the
            // OS is slow to wake up is not counted idle meanwhile).
            if deterministic && !held && !hasReady && runningCount == 0 && timers.isEmpty { idleSince = MonotonicClock.now() }
            wait()
            endIdle()
        }
        pthread_mutex_unlock(lock)
    }

    private var hasReady: Bool { queues.indices.contains { heads[$0] < queues[$0].count } }

    /// The policy's choice among the workers with a ready job (under the lock).
    private func nextWorker() -> Int? {
        readyScratch.removeAll(keepingCapacity: true)
        var oldest = -1, oldestSequence = UInt64.max
        for w in queues.indices where heads[w] < queues[w].count {
            readyScratch.append(w)
            let s = queues[w][heads[w]].sequence
            if s < oldestSequence { oldestSequence = s; oldest = w }
        }
        guard oldest >= 0 else { return nil }
        let chosen = policy.nextWorker(among: readyScratch, oldest: oldest, now: MonotonicClock.now(), parallel: !deterministic)
        if chosen != oldest { stats.reorderedJobs &+= 1 }
        return chosen
    }

    private func dequeue(_ w: Int) -> UnownedJob {
        let job = queues[w][heads[w]].job
        heads[w] += 1
        if heads[w] == queues[w].count {
            queues[w].removeAll(keepingCapacity: true)
            heads[w] = 0
        }
        stats.picks &+= 1
        return job
    }

    /// Moves the sleeps that are due to their workers' queues, in due order.
    private func releaseDueTimers() {
        guard !timers.isEmpty else { return }
        let now = deterministic ? virtualNow : MonotonicClock.now()
        guard timers.contains(where: { $0.due <= now }) else { return }
        let due = timers.filter { $0.due <= now }.sorted { ($0.due, $0.sequence) < ($1.due, $1.sequence) }
        timers.removeAll { $0.due <= now }
        for t in due { queues[t.worker].append(Queued(sequence: t.sequence, job: t.job)) }
    }

    /// Sleeps until woken, or until the next real deadline.
    /// Ends the deterministic executor's idle span, if it is in one (under the lock).
    private func endIdle() {
        guard idleSince != 0 else { return }
        idleNs &+= MonotonicClock.now() &- idleSince
        idleSince = 0
    }

    private func wait() {
        idle += 1
        defer { idle -= 1 }
        guard !deterministic, let due = timers.map(\.due).min() else {
            pthread_cond_wait(wake, lock)
            return
        }
        var deadline = timespec(tv_sec: Int(due / 1_000_000_000), tv_nsec: Int(due % 1_000_000_000))
        pthread_cond_timedwait(wake, lock, &deadline)
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}

/// How many threads the parallel harness executor runs: the CPUs this process
/// may use (`taskset` narrows them), and at least two, so that jobs of
/// different workers can overlap even on one core, as on Swift's own pool.
enum HarnessThreads {
    static let count: Int = {
        let allowed = Int(stress_cpus_allowed())
        return max(2, allowed > 0 ? allowed : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }()
}

/// The harness executor's figures for one trial (in records under `executor`).
package struct ExecutorStats: Sendable, Codable, Equatable {
    /// Threads the executor ran jobs on.
    public var threads = 0
    /// Jobs enqueued (each resumption after an `await`, each hop onto a default actor).
    public var jobs: UInt64 = 0
    /// Jobs run.
    public var picks: UInt64 = 0
    /// `Task.sleep`s that went through the executor.
    public var timedJobs: UInt64 = 0
    /// Jobs run out of first-come order by the policy.
    public var reorderedJobs: UInt64 = 0
    /// Jobs delayed before they ran.
    public var delayedJobs: UInt64 = 0
    /// Jobs sent to Swift's global executor while the trial ran: on the
    /// deterministic executor they ran on its thread instead; on the parallel
    /// one they ran on Swift's pool, outside the harness's schedule. Each
    /// `Task.sleep` makes one (its wake-up, which only hands the task back);
    /// more than ``timedJobs`` means code of the trial ran elsewhere (an
    /// unstructured `Task {}`, a callback resumed off the executor). Nil where
    /// the runtime has no enqueue hook.
    public var globalJobs: UInt64?
}

/// The watchdog's window onto a trial's harness executor (set by the task
/// driver before the workers start; read a few times per stall limit).
final class ExecutorView: Sendable {
    private let scheduler = Mutex<JobScheduler?>(nil)

    func attach(_ s: JobScheduler?) { scheduler.withLockSeen { $0 = s } }

    /// Worker `w`'s activity, or nil when its tasks run on another executor.
    func activity(of w: Int) -> WorkerActivity? {
        guard let s = scheduler.withLockSeen({ $0 }), w < s.workers else { return nil }
        return s.activity(of: w)
    }

    /// The deterministic executor's thread, or nil when the trial's tasks
    /// run on another executor.
    func deterministicState() -> DeterministicExecutorState? {
        scheduler.withLockSeen { $0 }?.deterministicState()
    }
}
