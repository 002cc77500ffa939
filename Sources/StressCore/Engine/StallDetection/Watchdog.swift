import CStressSupport
import Synchronization

/// Watches the site board of a running trial and reports the stalls of the
/// code under test: a ``StallReport`` (where every worker is, and the wait-for
/// cycle if there is one) handed to `onStall`, which ends the trial. Reading the
/// board costs the workers nothing: they only store to their own lines.
///
/// What counts as a stall:
///
/// - **The whole trial.** No worker has completed an operation for
///   `stallAfterNs`, and at least one is in the code under test: `deadlock`
///   when every unfinished worker waits (for a section, a queue, an actor, at
///   a barrier for the others, or asleep on a futex in the kernel), `hang`
///   when one runs. Reported at the limit when the workers cannot go on by
///   themselves, else after a grace and before the trial's timeout (see
///   ``WatchdogTiming``, and WatchdogWholeTrial.swift).
/// - **Some workers** (a partial stall). Workers that have not completed an
///   operation for `stallAfterNs` while others went on (completed an
///   operation once these had been stuck for the limit, and do not wait
///   behind them): `deadlock` when they
///   wait for each other in a cycle; `hang` when one runs without end (its
///   thread used the CPU during the stall, at least 1% of it, and completed
///   nothing: a loop that spins, yields or naps). A worker that waits without
///   a cycle is starved, not stalled; a thread that has not used the CPU is
///   one the OS has not run, or one blocked in the kernel (the site words of
///   the fastest loops are published once per batch, so they cannot tell such
///   a thread from a waiting one): neither is reported.
///
/// Never a stall: workers in the harness's own code (being created, between
/// operations, paused by the fuzzer, waiting for a paced start), or all at a
/// barrier with nobody in the code under test. The clock starts only once
/// every worker has reached the start barrier (``SiteBoard/arm()``; on the
/// deterministic executor's own clock, at the first look after it: see
/// ``ExecutorClock/firstLookOrigin(armedAt:now:)``); a start
/// slower than ``startLimitNs`` is a `hang` of its own, which says so.
final class Watchdog: Sendable {
    let board: SiteBoard
    let stallAfterNs: UInt64
    private let strategy: StrategyDescriptor
    private let onStall: @Sendable (StallReport) -> Void
    /// Set by the first report: a trial's stall is reported once, whoever
    /// finds it (the watchdog's own looks, or a controlled scheduler).
    private let reported = Atomic<Bool>(false)
    private let stopping = ConditionSignal()
    let startedAt = MonotonicClock.now()
    /// The latest a stall is reported, from `startedAt` (nil: no timeout to beat).
    let latestReportNs: UInt64?
    /// The kernel id of the thread that made the watchdog, the trial's
    /// coordinator: it wakes now and then to poll, which is no sign that a
    /// stuck worker may yet be woken.
    let coordinatorThread = stress_thread_id()

    /// How long the workers may take to reach the start barrier: creating
    /// thousands of threads on two cores takes seconds, which is not a stall
    /// of the code under test (at least 10 s, and never less than the stall limit).
    let startLimitNs: UInt64

    init(board: SiteBoard, stallAfterNs: UInt64, strategy: StrategyDescriptor, latestReportNs: UInt64? = nil,
         onStall: @escaping @Sendable (StallReport) -> Void) {
        self.board = board
        self.stallAfterNs = stallAfterNs
        self.strategy = strategy
        self.latestReportNs = latestReportNs
        self.onStall = onStall
        startLimitNs = Swift.max(stallAfterNs, 10_000_000_000)
    }

    /// Starts watching on a thread of its own.
    func start() -> OSThread? {
        OSThread.spawn { [self] in watch() }
    }

    /// Stops watching (after the workers have ended).
    func stop(_ thread: OSThread?) {
        stopping.open()
        thread?.join()
    }

    /// What the watchdog knows of one worker between two looks.
    struct Progress {
        var completed: UInt64 = 0
        /// When it last completed an operation (or the board was armed), monotonic ns.
        var lastCompletion: UInt64 = 0
        /// When it was last seen making progress of any kind: completing an
        /// operation, or out of the code under test (in the harness's own
        /// code, or at a barrier). A partial stall counts from here.
        var since: UInt64 = 0
        /// Its thread's CPU time at `since`, when it has a thread.
        var cpuAtSince: UInt64 = .max
        /// The site word last seen: a move to another step or phase (a lock
        /// acquired at last, say) is progress too.
        var site = SiteWord(raw: 0)
        /// Jobs of its task the harness executor had run (async steps).
        var jobsRun: UInt64 = 0
    }

    private func watch() {
        let interval = Swift.max(1_000_000, Swift.min(100_000_000, stallAfterNs / 10))
        var progress = [Progress](repeating: Progress(), count: board.participants)
        var armed = false
        var quiet = QuietLooks(harnessThreads: [coordinatorThread, stress_thread_id()])
        // The deterministic executor's own time (the wall clock elsewhere).
        var clock = ExecutorClock()
        // One timed wait per interval, which stop() cuts short: the watchdog
        // wakes about ten times per stall limit, not every few milliseconds, so
        // it takes next to nothing from the workers' cores and context-switch counts.
        while !stopping.wait(upTo: interval) {
            // The deterministic executor's time before what the workers
            // published: a look the OS delays between the two then sees
            // progress made after that time, never a stale snapshot against
            // a later clock (which counted the delay as time without progress).
            if reported.load(ordering: .acquiring) { return }
            let executorState = board.executor.deterministicState()
            let raw = (0..<board.participants).map(board.state)
            let activities = raw.indices.map { raw[$0].site.phase == .awaiting ? board.executor.activity(of: $0) : nil }
            let snapshot = Self.judged(raw, activities)
            if snapshot.prefix(board.workers).allSatisfy({ $0.site.phase == .finished }) { return }
            let wall = MonotonicClock.now()
            guard let armedAt = board.armedAt else {
                if wall &- startedAt >= startLimitNs {
                    deliver(startReport(snapshot, waitedFor: wall &- startedAt))
                    return
                }
                continue
            }
            let now = clock.reading(wall: wall, executorState)
            let firstLook = clock.firstLookOrigin(armedAt: armedAt, now: now)
            for w in 0..<board.participants {
                let phase = raw[w].site.phase
                let completed = !armed || snapshot[w].completed != progress[w].completed
                if completed {
                    progress[w].completed = snapshot[w].completed
                    progress[w].lastCompletion = armed ? now : firstLook
                }
                let jobs = activities[w]?.jobsRun ?? progress[w].jobsRun
                let moved = raw[w].site != progress[w].site || jobs != progress[w].jobsRun
                progress[w].site = raw[w].site
                progress[w].jobsRun = jobs
                if completed || moved || !phase.isInCodeUnderTest {
                    progress[w].since = armed ? now : firstLook
                    progress[w].cpuAtSince = stress_cpu_clock_ns(board.thread(w).cpuClock)
                }
            }
            armed = true
            // The executor's view first: where it applies it says why a
            // task is stuck (a job that never returns, an await nothing resumes).
            if let stall = asyncStall(snapshot, activities, progress, now: now, clock: clock, quiet: &quiet)
                ?? wholeTrialStall(snapshot, progress, now: now, quiet: &quiet) ?? partialStall(snapshot, progress, now: now) {
                deliver(stall)
                return
            }
        }
    }

    /// Hands `stall` to `onStall`, unless a stall of this trial was reported already.
    func deliver(_ stall: StallReport) {
        guard !reported.exchange(true, ordering: .acquiringAndReleasing) else { return }
        onStall(stall)
    }

    /// Some workers stuck while others progress: a cycle of waits, or a worker
    /// that runs (or sleeps in the kernel) without end.
    private func partialStall(_ snapshot: [ParticipantState], _ progress: [Progress], now: UInt64) -> StallReport? {
        let stuck = Set((0..<snapshot.count).filter { w in
            snapshot[w].site.phase.isInCodeUnderTest && now &- progress[w].since >= stallAfterNs
        })
        guard !stuck.isEmpty else { return nil }
        let graph = graph(snapshot)
        if let cycle = graph.firstCycle(among: stuck) {
            let since = cycle.map { progress[$0].since }.max() ?? now
            // Partial only if some worker went on: otherwise every worker
            // not in the cycle waits behind it, and the whole-trial check
            // reports the stall of the whole trial (within one limit of the
            // last completion).
            guard othersWentOn(since: since, besides: graph.stuckForGood(assuming: Set(cycle)), progress, now: now) else { return nil }
            var stall = report(snapshot, stalledFor: now &- since, partial: cycle, cycle: cycle)
            stall.beganAfterNanoseconds = Int(since &- startedAt)
            return stall
        }
        for w in stuck.sorted() where !snapshot[w].site.phase.isWaiting {
            // "While the others went on": some other worker, not waiting
            // behind this one now, completed an operation during this one's
            // stall. Without that it is not a partial stall (a lock holder
            // the OS has descheduled holds up everyone; the whole-trial
            // check judges that).
            guard othersWentOn(since: progress[w].since, besides: graph.stuckForGood(assuming: [w]), progress, now: now) else { continue }
            let thread = board.thread(w)
            let cpuNow = stress_cpu_clock_ns(thread.cpuClock)
            // It ran (at least 1% of the stall on the CPU: a loop that spins,
            // yields or naps) and completed nothing. A thread the OS has not
            // run, or one blocked in the kernel, used none. A task worker has
            // no thread to look at: it is not judged here.
            guard cpuNow != .max, progress[w].cpuAtSince != .max,
                  cpuNow &- progress[w].cpuAtSince >= (now &- progress[w].since) / 100 else { continue }
            var stall = report(snapshot, stalledFor: now &- progress[w].since, partial: [w],
                               hangReason: "its thread kept using the CPU (\(Quantities.format(nanoseconds: cpuNow &- progress[w].cpuAtSince)) of it)")
            stall.beganAfterNanoseconds = Int(progress[w].since &- startedAt)
            return stall
        }
        return nil
    }

    /// Whether a worker outside `stuck` went on while the workers stuck
    /// `since` then stayed stuck: completed an operation once they had been
    /// stuck for the limit. An operation that merely ended meanwhile does
    /// not count: its worker may have gone on to wait behind them (a role
    /// that did its part and waits at the round's barrier), which is a
    /// stall of the whole trial, whose check reports it. Of workers that do
    /// go on, one completes an operation soon after.
    func othersWentOn(since: UInt64, besides stuck: Set<Int>, _ progress: [Progress], now: UInt64) -> Bool {
        let limitReached = Swift.min(since &+ stallAfterNs, now)
        return progress.prefix(board.workers).enumerated().contains { w, p in !stuck.contains(w) && p.lastCompletion > limitReached }
    }

    /// The report of workers that did not all reach the start barrier in time.
    private func startReport(_ snapshot: [ParticipantState], waitedFor: UInt64) -> StallReport {
        let workers = snapshot.prefix(board.workers)
        let starting = workers.filter { $0.site.phase == .starting }.count
        let summary = "hang: the workers did not all reach the start barrier within \(Quantities.format(nanoseconds: waitedFor)) "
            + "(\(starting) of \(workers.count) still starting): the machine could not create or schedule them in time; "
            + "use fewer threads"
        var stall = StallReport(kind: .hang, stalledForNs: Int(waitedFor),
                                workers: workers.enumerated().map { describe($0.offset, $0.element) },
                                cycle: nil, summary: summary)
        stall.beganAfterNanoseconds = 0
        return stall
    }

    /// The report of a stall: of the whole trial (`partial` nil), or of the
    /// workers in `partial` while the others went on. `knownCycle` is the
    /// cycle the caller found, described as it is (sought in the graph when nil).
    func report(_ snapshot: [ParticipantState], stalledFor: UInt64,
                partial: [Int]? = nil, cycle knownCycle: [Int]? = nil, hangReason: String? = nil) -> StallReport {
        // Every worker, and the main and helper threads that took part.
        let shown = snapshot.indices.filter { $0 < board.workers || snapshot[$0].site.phase != .idle }
        let workers = shown.map { withKernelWait(describe($0, snapshot[$0]), snapshot[$0]) }
        let considered = partial.map { Set($0) } ?? Set(snapshot.indices.filter { !snapshot[$0].site.phase.isOut })
        let running = considered.sorted().filter {
            !snapshot[$0].site.phase.isWaiting && !snapshot[$0].site.phase.isHarnessBusy && snapshot[$0].kernel?.waitsForAnotherThread != true
        }
        let kind: StallReport.Kind = running.isEmpty ? .deadlock : .hang
        let graph = graph(snapshot)
        let cycle = (knownCycle ?? graph.firstCycle(among: partial.map { Set($0) })).map(graph.describe)
        let seconds = Quantities.format(nanoseconds: stalledFor)
        var summary: String
        let name = { (p: Int) in WaitForGraph.participantName(p, workers: self.board.workers) }
        if let partial {
            let who = partial.map(name).joined(separator: ", ")
            // The other workers went on, but for those stuck behind the
            // cycle (waiting for its locks, or for a signal only it could send).
            let behind = graph.stuckForGood(assuming: Set(partial)).subtracting(partial).filter { $0 < board.workers }.count
            let others = board.workers - partial.filter { $0 < board.workers }.count - behind
            let othersWords = (behind > 0 ? ", and \(behind) other worker(s) waited behind them" : "")
                + (others > 0 ? ", while \(others) other worker(s) went on" : "")
            let awaiting = partial.allSatisfy { snapshot[$0].site.phase == .awaiting }
            summary = awaiting
                ? "deadlock: \(who) stayed suspended in an await for \(seconds) with nothing of theirs queued, running or sleeping "
                    + "on the harness executor (a continuation never resumed, a task awaiting itself, a cycle of awaits)"
                    + (others > 0 ? ", while \(others) other worker(s) went on" : "")
                : kind == .deadlock
                ? "deadlock: \(who) completed no operation for \(seconds), each waiting for another of them" + othersWords
                : "hang: \(who) (\(describe(partial[0], snapshot[partial[0]]).description)) completed no operation for \(seconds) while \(others) other worker(s) went on"
                    + (hangReason.map { "; \($0)" } ?? "")
        } else if kind == .deadlock {
            summary = "deadlock: no worker completed an operation for \(seconds); every unfinished worker is waiting"
        } else {
            let who = running.map { "\(name($0)) (\(describe($0, snapshot[$0]).description))" }.joined(separator: ", ")
            summary = "hang: no worker completed an operation for \(seconds); still running: \(who)"
        }
        if let cycle { summary += ". Wait-for cycle: " + cycle.joined(separator: "; ") }
        return StallReport(kind: kind, stalledForNs: Int(stalledFor), workers: workers, cycle: cycle, summary: summary,
                           partial: partial != nil ? true : nil)
    }

    /// The wait-for graph of `snapshot`.
    func graph(_ snapshot: [ParticipantState]) -> WaitForGraph {
        WaitForGraph(snapshot, workers: board.workers, singleDomain: strategy.singleDomain, mainQueue: strategy.primitive == .mainQueue,
                     rounds: board.roles != nil)
    }

    private func describe(_ w: Int, _ state: ParticipantState) -> StalledWorker {
        let site = state.site, completed = state.completed
        let label = site.site.flatMap { board.labels.indices.contains($0) ? board.labels[$0] : nil }
        let parts = label?.split(separator: "/", maxSplits: 1).map(String.init)
        let r = site.resource, inner = site.inner
        let mode = site.isWrite ? "write" : "read"
        let noun: (Int) -> String = { [strategy] r in
            switch strategy.primitive {
            case .lock: return "the lock of resource \(r)"
            case .queue: return "the queue of resource \(r)"
            case .actor: return "the actor of resource \(r)"
            case .mainQueue: return "the main queue (resource \(r))"
            case .semaphore: return "the semaphore of resource \(r)"
            case .atomic, .none: return "resource \(r) (not synchronized)"
            }
        }
        let text: String
        switch site.phase {
        case .starting: text = "starting"
        case .running: text = "running outside any critical section"
        case .acquiring: text = "waiting to acquire \(noun(r)) (\(mode))"
        case .inside: text = "inside \(noun(r)) (\(mode))"
        case .acquiringInner:
            text = inner == r
                ? "holding \(noun(r)) and waiting to acquire it again (nested write)"
                : "holding \(noun(r)) and waiting to acquire \(noun(inner)) (nested write)"
        case .insideInner: text = "inside \(noun(r)) and, nested, \(noun(inner))"
        case .betweenOperations: text = "between operations"
        case .atBarrier: text = board.roles == nil ? "waiting at a barrier for the other workers" : "waiting at the round's barrier for the other roles"
        case .finished: text = "finished"
        case .pacing: text = "waiting for its next scheduled start (paced load)"
        case .fuzzing: text = "paused by the fuzzer"
        case .idle: text = "idle"
        case .blocked: text = "waiting for"
        case .awaiting:
            text = board.executor.activity(of: w) == nil
                ? "in an await of the code under test (on Swift's global executor, which cannot say whether it runs)"
                : "suspended in an await; nothing of its task is queued, running or sleeping on the harness executor"
        }
        let hasResource = [.acquiring, .inside, .acquiringInner, .insideInner].contains(site.phase)
        // What a harness-aware primitive says it waits for and holds.
        var keyed = ""
        if state.waitKind != 0 {
            let key = WaitKey.primitive(state.waitKey)
            keyed += (site.phase == .blocked ? " " : "; waiting for ")
                + (state.waitKind == UInt64(STRESS_WAIT_CONDITION)
                    ? "a signal on " + PrimitiveNames.describeCondition(key) : PrimitiveNames.describe(key))
        }
        if !state.held.isEmpty { keyed += "; holding " + Self.heldList(state.held) }
        // A scenario's worker always runs one role: name it where no step does
        // (between its role's runs, at the round's barrier).
        let role = label == nil ? board.roles.flatMap { $0.indices.contains(w) ? $0[w] : nil } : nil
        return StalledWorker(
            thread: w, participant: w < board.workers ? nil : WaitForGraph.participantName(w, workers: board.workers),
            operation: parts?.first ?? role, step: parts?.dropFirst().first, phase: "\(site.phase)",
            description: (label.map { "\($0): " } ?? role.map { "\($0): " } ?? "") + (state.note ?? text) + keyed,
            resource: hasResource ? r : nil,
            innerResource: site.phase == .acquiringInner || site.phase == .insideInner ? inner : nil,
            completedOps: Int(completed)
        )
    }

    /// What a participant holds, each primitive once, in the order it took
    /// them: a recursive lock taken again is published once per take, and
    /// shown once with its count ("the lock 'cash' (held 2 times: re-entered)").
    static func heldList(_ held: [UInt64]) -> String {
        WaitForGraph.counted(held.map(WaitKey.primitive)).map { key, count in
            PrimitiveNames.describe(key) + WaitForGraph.reentries(count)
        }.joined(separator: ", ")
    }

    /// The first cycle in the wait-for graph (worker → holder of what it waits
    /// for), as one line per edge; nil when there is none.
    /// With `singleDomain` (every resource guarded by one shared domain, as
    /// queues draining on one target are), holding any resource holds them all.
    static func waitForCycle(_ sites: [SiteWord], singleDomain: Bool = false) -> [String]? {
        let graph = WaitForGraph(sites.map { ParticipantState(site: $0, completed: 0) }, workers: sites.count, singleDomain: singleDomain)
        return graph.firstCycle().map(graph.describe)
    }
}
