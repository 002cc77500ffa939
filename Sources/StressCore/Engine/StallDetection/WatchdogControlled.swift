import Synchronization

extension Watchdog {
    /// A controlled trial's deadlock, found by its scheduler the moment every
    /// live worker was blocked (or one asked for what it holds): reported at
    /// once, from the board as it stands, with the decisions that led there.
    /// Nothing is waited out: under control a worker that waits in the model
    /// can only be woken by another worker's step, and none can take one.
    func reportControlledDeadlock(stuck: [Int], schedule: ScheduleRecord, detail: ControlledScheduler.StallDetail) {
        let raw = (0..<board.participants).map(board.state)
        let snapshot = Self.judged(raw, raw.map { _ in nil })
        // A queue worker (numbered after the thread workers and the main
        // thread, whose line is the board's `workers`) has no line of the
        // board: the summary names it (``StallDetail/names``).
        let onBoard = stuck.filter { $0 <= board.workers }
        let partial = onBoard.count < board.workers && !onBoard.isEmpty ? onBoard : nil
        var stall = report(snapshot, stalledFor: 0, partial: partial)
        let who = stuck.map { detail.names[$0] ?? WaitForGraph.participantName($0, workers: board.workers) }.joined(separator: ", ")
        stall.kind = .deadlock
        stall.summary = "deadlock: \(who) can never go on, each waiting for a resource or a signal only another of them "
            + "(or itself) could give; found at once by controlled scheduling, at decision \(schedule.decisions ?? 0)"
            + (stall.cycle.map { ". Wait-for cycle: " + $0.joined(separator: "; ") } ?? "")
        stall.beganAfterNanoseconds = board.armedAt.map { Int(MonotonicClock.now() &- $0) }
        stall.schedule = schedule
        stall.trace = detail.trace
        stall.traceEventCount = detail.traceEventCount
        stall.preemptions = detail.preemptions
        stall.choices = detail.choices
        deliver(stall)
    }

    /// A controlled trial's livelock: no operation ended anywhere while its
    /// workers passed `points` scheduling points (a spin on a flag, a loop of
    /// `try`, that the others cannot satisfy). Reported as a `hang` whose
    /// summary says `livelock` and where the spinning worker is.
    func reportControlledLivelock(worker: Int, points: Int, schedule: ScheduleRecord, detail: ControlledScheduler.StallDetail) {
        let raw = (0..<board.participants).map(board.state)
        let snapshot = Self.judged(raw, raw.map { _ in nil })
        var stall = report(snapshot, stalledFor: 0, partial: [worker])
        let name = WaitForGraph.participantName(worker, workers: board.workers)
        let place = stall.workers.first { $0.name == name }?.description ?? "its current step"
        stall.kind = .hang
        stall.summary = "livelock: \(name) (\(place)) went on passing scheduling points, \(points) with no operation ending "
            + "anywhere: a spin on a flag, or a loop of try, that no other worker can satisfy; found by controlled scheduling, "
            + "at decision \(schedule.decisions ?? 0)"
        stall.beganAfterNanoseconds = board.armedAt.map { Int(MonotonicClock.now() &- $0) }
        stall.schedule = schedule
        stall.trace = detail.trace
        stall.traceEventCount = detail.traceEventCount
        stall.preemptions = detail.preemptions
        stall.choices = detail.choices
        deliver(stall)
    }
}
