/// The watchdog's view of workers in an `async` step, which publish one phase
/// (``WorkerPhase/awaiting``) for the whole step: the harness executor says
/// what their task is doing.
extension Watchdog {
    /// `raw` with each awaiting worker's phase replaced by what the harness
    /// executor knows: `running` while one of its jobs runs (a job that never
    /// returns to the executor is then a hang), `fuzzing` (the harness's own
    /// business, never a stall) while a job of it is queued or it sleeps in
    /// `Task.sleep`, and `awaiting` (a wait) when nothing the executor holds
    /// will resume it. Without a harness executor (`executor: global`) an
    /// awaiting worker counts as waiting.
    static func judged(_ raw: [ParticipantState], _ activities: [WorkerActivity?]) -> [ParticipantState] {
        var judged = raw
        for w in raw.indices {
            guard let activity = activities[w] else { continue }
            let phase: WorkerPhase = activity.runningSinceNs != nil ? .running : activity.isSuspended ? .awaiting : .fuzzing
            // The same word with the phase's four bits (24...27) replaced.
            judged[w].site = SiteWord(raw: raw[w].site.raw & ~(UInt64(0xF) << 24) | phase.rawValue << 24)
            judged[w].note = activity.runningSinceNs != nil ? "running a job of its async step on the harness executor"
                : activity.queued > 0 ? "ready: \(activity.queued) job(s) of its task queued on the harness executor"
                : activity.sleeping ? "sleeping (Task.sleep) on the harness executor" : nil
        }
        return judged
    }

    /// Workers in an `async` step stuck while others go on: a job of one that
    /// has run for the limit without returning to the executor (`hang`), or
    /// workers suspended for the limit with nothing of theirs queued, running
    /// or sleeping on the executor (`deadlock`: a continuation nobody resumes,
    /// a task awaiting itself, actors awaiting each other's results).
    ///
    /// On the deterministic executor time is the executor's own
    /// (``ExecutorClock``): a job is judged by the CPU its thread used while
    /// it held it, and the stall is the whole trial's, since nothing else can
    /// run meanwhile (``heldJobStall(_:_:now:clock:)``); a suspension counts
    /// while the executor is idle, and is reported at the limit only once
    /// nothing outside the executor can resume it either
    /// (``outsideMayResume(_:clock:)``).
    func asyncStall(_ snapshot: [ParticipantState], _ activities: [WorkerActivity?], _ progress: [Progress],
                    now: UInt64, clock: ExecutorClock, quiet: inout QuietLooks) -> StallReport? {
        if clock.isDeterministic, let stall = heldJobStall(snapshot, activities, now: now, clock: clock) { return stall }
        for w in snapshot.indices where !clock.isDeterministic {
            guard let since = activities[w]?.runningSinceNs, now &- since >= stallAfterNs else { continue }
            let reason = "one job of its task has run for \(Quantities.format(nanoseconds: now &- since)) "
                + "without returning to the executor (a loop between two awaits)"
            // Partial only if another worker completed an operation meanwhile.
            let othersWentOn = progress.prefix(board.workers).enumerated().contains { other, p in other != w && p.lastCompletion > since }
            var stall = othersWentOn ? report(snapshot, stalledFor: now &- since, partial: [w], hangReason: reason)
                                     : report(snapshot, stalledFor: now &- since)
            if !othersWentOn { stall.summary += "; " + reason }
            stall.beganAfterNanoseconds = Int(since &- startedAt)
            return stall
        }
        let suspended = snapshot.indices.filter { w in
            activities[w]?.isSuspended == true && now &- progress[w].since >= stallAfterNs
        }
        guard !suspended.isEmpty else {
            quiet.outsideAsleepInARow = 0
            return nil
        }
        let since = suspended.map { progress[$0].since }.max() ?? now
        var afterGrace = false
        if clock.isDeterministic && outsideMayResume(&quiet, clock: clock) {
            afterGrace = now &- since >= WatchdogTiming.graceNs(stallAfterNs: stallAfterNs)
                || latestReportNs.map { clock.wallNs &- startedAt >= $0 } == true
            guard afterGrace else { return nil }
        }
        // Partial only if another worker went on meanwhile; else the whole
        // trial stalled, and the report says why these workers wait.
        let wentOn = othersWentOn(since: since, besides: graph(snapshot).stuckForGood(assuming: Set(suspended)), progress, now: now)
        var stall = report(snapshot, stalledFor: now &- since, partial: wentOn ? suspended : nil)
        if !wentOn {
            stall.summary += "; " + suspended.map { WaitForGraph.participantName($0, workers: board.workers) }.joined(separator: ", ")
                + " stayed suspended in an await with nothing of theirs queued, running or sleeping on the harness executor"
        }
        if afterGrace {
            stall.summary += ". Reported after the watchdog's grace (10 × deadlock_after, at least 2s, or just before the timeout): "
                + "a thread outside the harness executor could still run all that time, and did not resume them"
        }
        stall.beganAfterNanoseconds = Int(since &- startedAt)
        return stall
    }

    /// Whether a thread outside the deterministic executor may yet resume
    /// its suspended workers. Nothing of theirs is on the executor, so only
    /// such a thread can: a callback's `DispatchQueue`, a timer's thread, a
    /// thread of the code under test's own. Its time is on no executor
    /// clock, and on a loaded machine the OS may leave it waiting for a CPU
    /// longer than the limit. So the workers are stuck only once every
    /// thread of the process but the harness's own (the watchdog, the
    /// coordinator, the executor's thread) sits asleep in the kernel, on two
    /// looks in a row (the threads are read one after another, so one look
    /// may catch a thread just woken still asleep); a thread running,
    /// waiting for a CPU or in an uninterruptible wait may still resume
    /// them. One asleep on a timer longer than the limit (a callback due
    /// later) cannot be told apart: that wait counts. Where the platform
    /// does not say, nothing may resume them.
    func outsideMayResume(_ quiet: inout QuietLooks, clock: ExecutorClock) -> Bool {
        let harness = clock.threadId == 0 ? quiet.harnessThreads : quiet.harnessThreads.union([clock.threadId])
        let asleep = KernelThreads.othersAsleep(ignoring: harness) != false
        quiet.outsideAsleepInARow = asleep ? quiet.outsideAsleepInARow + 1 : 0
        return quiet.outsideAsleepInARow < 2
    }

    /// The job holding the deterministic executor's only thread, when it has
    /// held it too long: a `hang` of the whole trial (no other job can run
    /// while it does). Too long is the stall limit of CPU time, used without
    /// returning to the executor (a loop between two awaits), or
    /// ``ExecutorClock/kernelWaitLimit(stallAfterNs:)`` of wall time with
    /// under 1% of it on the CPU (blocked in the kernel). A job the OS has
    /// not run for a while is neither.
    func heldJobStall(_ snapshot: [ParticipantState], _ activities: [WorkerActivity?], now: UInt64, clock: ExecutorClock) -> StallReport? {
        guard let held = clock.held,
              let w = activities.indices.first(where: { activities[$0]?.runningJob == held.number }),
              let since = activities[w]?.runningSinceNs else { return nil }
        let heldFor = held.heldForNs(now: now)
        let wallFor = clock.wallNs &- since
        let reason: String
        if heldFor >= stallAfterNs {
            reason = "one job of its task has held the deterministic executor's only thread for "
                + "\(Quantities.format(nanoseconds: heldFor)) of CPU time without returning to the executor "
                + "(a loop between two awaits); no other job can run meanwhile"
        } else {
            let watched = clock.wallNs &- held.firstSeenWallNs
            guard held.firstSeenCpuNs != .max, clock.cpuNs != .max,
                  watched >= ExecutorClock.kernelWaitLimit(stallAfterNs: stallAfterNs),
                  clock.cpuNs &- held.firstSeenCpuNs < watched / 100 else { return nil }
            reason = "one job of its task has held the deterministic executor's only thread for "
                + "\(Quantities.format(nanoseconds: wallFor)) without returning to the executor, using almost no CPU "
                + "(\(Quantities.format(nanoseconds: clock.cpuNs &- held.firstSeenCpuNs))): it is blocked in the kernel "
                + "(a lock, a semaphore or a sleep of the code under test); no other job can run meanwhile"
        }
        let stalledFor = heldFor >= stallAfterNs ? heldFor : wallFor
        var stall = report(snapshot, stalledFor: stalledFor)
        stall.summary += "; " + reason
        stall.beganAfterNanoseconds = Int(since &- Swift.min(since, startedAt))
        return stall
    }
}
