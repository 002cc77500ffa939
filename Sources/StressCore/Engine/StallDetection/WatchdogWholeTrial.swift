import CStressSupport

/// The stall of the whole trial (no worker has completed an operation for the
/// limit), and when it is safe to say so.
///
/// At the limit when the workers cannot go on by themselves:
/// - what they publish shows a deadlock: participants stuck for good (a
///   cycle of waits, through the round's barrier too, or a signal only the
///   stuck could send), unmoved for the limit;
/// - or a worker runs in the code under test and used the CPU during the
///   stall (a hang: it runs, and completes nothing);
/// - or every worker in the code under test that has not run is asleep in
///   the kernel, and so is every other thread of the process, on two looks
///   in a row (a lock of the code under test the harness does not see, taken
///   twice; a sleep without end): nothing is left to wake them.
///
/// Otherwise a worker in the code under test has not run while something
/// else in the process could still run (on two loaded cores a lock holder
/// among hundreds of spinners waits longer than a short limit for a CPU): it
/// gets ``WatchdogTiming/graceNs(stallAfterNs:)`` to run, and the report
/// comes no later than ``Watchdog/latestReportNs`` all the same.
extension Watchdog {
    /// What the watchdog keeps between two looks at a trial that has
    /// completed nothing for the limit.
    struct QuietLooks {
        /// The harness's own threads (the watchdog's, the coordinator's),
        /// whose waking up to poll is no sign that a worker may be woken.
        let harnessThreads: Set<UInt64>
        /// Looks in a row at which every thread of the process was asleep
        /// in the kernel: the process's threads are read one after another,
        /// so one look may catch a thread that had just been woken asleep
        /// still; two in a row, a tenth of the limit apart, do not.
        var inARow = 0
        /// Looks in a row at which, with workers of the deterministic
        /// executor suspended for the limit, every thread outside the
        /// harness was asleep in the kernel (see
        /// ``Watchdog/outsideMayResume(_:clock:)``).
        var outsideAsleepInARow = 0
    }

    /// The stall of the whole trial, when it is time to report it (see the
    /// extension's comment).
    func wholeTrialStall(_ snapshot: [ParticipantState], _ progress: [Progress], now: UInt64, quiet: inout QuietLooks) -> StallReport? {
        // Only workers complete operations; the main and helper threads run
        // blocks for them.
        let newest = progress.prefix(board.workers).map(\.lastCompletion).max() ?? now
        let stalledFor = now &- newest
        let unfinished = snapshot.filter { !$0.site.phase.isOut }
        guard stalledFor >= stallAfterNs,
              unfinished.contains(where: { $0.site.phase.isInCodeUnderTest }),
              !unfinished.contains(where: { $0.site.phase.isHarnessBusy }),
              !Self.waitForFreeLocksOnly(unfinished) else {
            quiet.inARow = 0
            return nil
        }
        var snapshot = snapshot
        // Workers in the code under test that wait for nothing the harness
        // sees, and those of them whose thread has not run during the stall
        // (under 1% of it on the CPU): not scheduled, or blocked in the kernel.
        let runners = snapshot.indices.filter { snapshot[$0].site.phase.isInCodeUnderTest && !snapshot[$0].site.phase.isWaiting }
        let idle = runners.filter { !ranDuringStall($0, progress[$0], now: now) }
        for w in idle { snapshot[w].kernel = KernelThreads.state(of: board.thread(w).id) }
        var afterGrace = false
        let graph = graph(snapshot)
        let deadlocked = publishedDeadlock(graph, snapshot, progress, now: now)
        if deadlocked && signalledButNotRun(graph.stuckForGood().intersection(graph.signalWaiters)) {
            quiet.inARow = 0
            return nil
        }
        if !deadlocked && runners.count == idle.count {
            let asleep = idle.allSatisfy { snapshot[$0].kernel?.isAsleep == true }
                && KernelThreads.othersAsleep(ignoring: quiet.harnessThreads.union(cannotWake(graph, snapshot, idle: idle))) == true
            quiet.inARow = asleep ? quiet.inARow + 1 : 0
            guard quiet.inARow < 2 else { return wholeTrialReport(snapshot, idle: idle, newest: newest, now: now, afterGrace: false) }
            afterGrace = stalledFor >= WatchdogTiming.graceNs(stallAfterNs: stallAfterNs)
                || latestReportNs.map { now &- startedAt >= $0 } == true
            guard afterGrace else { return nil }
        }
        return wholeTrialReport(snapshot, idle: idle, newest: newest, now: now, afterGrace: afterGrace)
    }

    /// The report of a stall of the whole trial since `newest`, naming what
    /// the kernel says of the `idle` workers, and saying so when it comes
    /// `afterGrace` (see ``WatchdogTiming``) rather than at the limit.
    private func wholeTrialReport(_ snapshot: [ParticipantState], idle: [Int], newest: UInt64, now: UInt64, afterGrace: Bool) -> StallReport {
        var stall = report(snapshot, stalledFor: now &- newest)
        stall.beganAfterNanoseconds = Int(newest &- startedAt)
        let name = { (p: Int) in WaitForGraph.participantName(p, workers: self.board.workers) }
        let inKernel = idle.filter { snapshot[$0].kernel?.isAsleep == true }
        if !inKernel.isEmpty {
            stall.summary += ". Where the harness cannot see: "
                + inKernel.map { "\(name($0)) \(snapshot[$0].kernel!.words)" }.joined(separator: "; ")
        }
        if afterGrace {
            stall.summary += ". Reported after the watchdog's grace (10 × deadlock_after, at least 2s, or just before the timeout): "
                + (idle.isEmpty ? "every unfinished worker waited, in no cycle the harness sees,"
                                : idle.map(name).joined(separator: ", ") + " had not run during the stall")
                + " while another thread of the process could still run"
        }
        return stall
    }

    /// Whether one of `waiters`, each publishing a wait for a signal, is not
    /// asleep in the kernel, where the platform tells: it was signalled and
    /// has not run since. Until it runs it still publishes its wait, and on
    /// a loaded machine that can last longer than `deadlock_after`, while
    /// every worker that could signal it has finished: a deadlock by what is
    /// published, but not one. (A waiter stuck for good sleeps on a futex.)
    private func signalledButNotRun(_ waiters: Set<Int>) -> Bool {
        waiters.contains { p in
            guard p < board.participants else { return false }
            return KernelThreads.state(of: board.thread(p).id).map { !$0.isAsleep } ?? false
        }
    }

    /// Whether what the participants publish shows a deadlock: some are
    /// stuck for good, and those of them in the code under test have not
    /// moved for the limit (a site word the fastest loops publish once per
    /// batch can be stale for a moment, never for the limit).
    private func publishedDeadlock(_ graph: WaitForGraph, _ snapshot: [ParticipantState], _ progress: [Progress], now: UInt64) -> Bool {
        let stuck = graph.stuckForGood()
        return !stuck.isEmpty && stuck.allSatisfy { p in
            !snapshot[p].site.phase.isInCodeUnderTest || now &- progress[p].since >= stallAfterNs
        }
    }

    /// The threads of workers that may be running (polling, spinning) but
    /// cannot wake a worker blocked in the kernel, because they wait on the
    /// harness's terms for something that cannot come while the `idle`
    /// workers stay where they are: at a barrier (which opens only once
    /// every worker, the idle ones too, reaches it; a round's barrier waits
    /// by polling), finished (waiting for the others to finish), or spinning
    /// for a strategy lock an idle worker holds.
    private func cannotWake(_ graph: WaitForGraph, _ snapshot: [ParticipantState], idle: [Int]) -> Set<UInt64> {
        let idleSet = Set(idle)
        return Set((0..<board.workers).compactMap { w -> UInt64? in
            let phase = snapshot[w].site.phase
            let waitsForIdle = (phase == .acquiring || phase == .acquiringInner) && snapshot[w].waitKind == 0
                && !graph.edges(w).isEmpty && graph.edges(w).allSatisfy(idleSet.contains)
            guard phase == .atBarrier || phase == .finished || waitsForIdle else { return nil }
            let id = board.thread(w).id
            return id == 0 ? nil : id
        })
    }

    /// Whether `w`'s thread used at least 1% of the time since it last
    /// moved on the CPU. A worker without a thread of its own (a task) or
    /// whose clock cannot be read counts as having run: nothing says otherwise.
    private func ranDuringStall(_ w: Int, _ progress: Progress, now: UInt64) -> Bool {
        let cpuNow = stress_cpu_clock_ns(board.thread(w).cpuClock)
        guard cpuNow != .max, progress.cpuAtSince != .max else { return true }
        return cpuNow &- progress.cpuAtSince >= (now &- progress.since) / 100
    }

    /// Workers that only ask for strategy locks nobody is inside of wait for
    /// the OS to run one of them, not for each other: 256 spinning workers on
    /// 2 busy cores can take longer than a short limit to hand a free lock
    /// on. A deadlock has a holder (or a primitive's wait).
    private static func waitForFreeLocksOnly(_ unfinished: [ParticipantState]) -> Bool {
        unfinished.allSatisfy { state in
            let phase = state.site.phase
            return (phase == .acquiring || !phase.isInCodeUnderTest) && state.held.isEmpty && state.waitKind == 0
        }
    }

    /// `worker` with what the kernel says of its thread, when the watchdog
    /// read it (a worker in the code under test that did not run).
    func withKernelWait(_ worker: StalledWorker, _ state: ParticipantState) -> StalledWorker {
        guard let kernel = state.kernel, kernel.state != "R" else { return worker }
        var worker = worker
        worker.kernelWait = kernel
        worker.description += "; " + kernel.words
        return worker
    }
}
