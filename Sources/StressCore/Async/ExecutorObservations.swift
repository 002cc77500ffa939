/// What the harness executor knows of one worker's task at a moment.
struct WorkerActivity: Sendable, Equatable {
    /// Jobs of it ready to run.
    var queued: Int
    /// When the job of it now running started (monotonic ns); nil when none runs.
    var runningSinceNs: UInt64?
    /// Whether it sleeps (`Task.sleep`) with a deadline the executor holds.
    var sleeping: Bool
    /// Jobs of it run so far: when this moves, the worker made progress.
    var jobsRun: UInt64
    /// The number of its running job (``DeterministicExecutorState/runningJob``
    /// counts the same way), nil when none runs.
    var runningJob: UInt64? = nil

    /// Suspended, and nothing the executor holds will resume it: only code
    /// elsewhere (another task, a continuation's owner) can.
    var isSuspended: Bool { queued == 0 && runningSinceNs == nil && !sleeping }
}

/// The deterministic executor's one thread, as the watchdog sees it.
struct DeterministicExecutorState: Sendable, Equatable {
    /// The number of the job running on it (each job started gets the next
    /// one), or nil while none runs.
    var runningJob: UInt64?
    /// How long it has had nothing to do so far (no job running or ready,
    /// no sleep pending, not held by the coordinator): only then can a
    /// suspended worker wait for something that is not the executor's.
    var idleNs: UInt64 = 0
    /// The CPU time its thread has used (`UInt64.max` when it cannot be read).
    var cpuNs: UInt64
    /// Its thread's kernel id (0 before the thread has started): the one
    /// thread of the process that runs the trial's jobs.
    var threadId: UInt64 = 0
    /// The monotonic time at which the executor's state was read (0: not
    /// known): the idle time is counted up to it, and a watchdog whose look
    /// the OS delays afterwards anchors its clock here, not later.
    var wallNs: UInt64 = 0
}
