/// The coordinator's side of a trial, written once for both drivers: the
/// workers meet at the warm-up gate (the board is then armed), warm up until
/// the coordinator ends the warm-up, meet at the measure gate (where the
/// scheduling policy is told the measured window begins, PCT calibrating its
/// priorities, and the window opens),
/// run the measured window until its duration is up or the workers are
/// done, and meet at the end gate, where the window closes.
///
/// The coordinator only sleeps, flips phases and reads the process's counters
/// while every worker is held at a gate, so the measured window's counters
/// hold the measured loops and nothing else.
struct TrialPhases<Gate: PhaseGate>: Sendable {
    let control: TrialControl
    let warmupGate: Gate, measureGate: Gate, endGate: Gate
    /// How the gates are opened: at once, or (the task driver on the
    /// harness executor) with the wake-ups of every worker in one batch.
    let opening: @Sendable (() -> Void) -> Void

    init(control: TrialControl, warmupGate: Gate, measureGate: Gate, endGate: Gate,
         opening: @escaping @Sendable (() -> Void) -> Void = { $0() }) {
        self.control = control
        (self.warmupGate, self.measureGate, self.endGate) = (warmupGate, measureGate, endGate)
        self.opening = opening
    }

    /// Runs the trial's phases, from the workers' first meeting to their last.
    /// `beforeWindow` runs while every worker waits at the measure gate, after
    /// the calibration and before the window opens (the thread driver works
    /// out the paced rate there). The window reads the workers' own CPU
    /// clocks too when `window` says `readsWorkers`.
    func coordinate(
        settings: TrialSettings, board: SiteBoard, fuzz: (any FuzzCoordinator)?, rounds: RoundProgram?,
        window: UsageWindow, readsWorkers: Bool, beforeWindow: () -> Void = {}
    ) {
        warmupGate.waitForAll()
        board.arm()
        rounds?.prepare(measured: false)
        opening { warmupGate.release() }
        control.sleep(upTo: settings.warmupNs)
        control.beginMeasuring()
        // Every worker is at the measure gate (its warm-up over): calibrate,
        // then open the window and let them go.
        measureGate.waitForAll()
        fuzz?.beginMeasuredWindow(board: board, settings: settings, scenario: rounds != nil)
        rounds?.prepare(measured: true)
        beforeWindow()
        window.open(workersOf: readsWorkers ? board : nil)
        opening { measureGate.release() }
        // A controlled trial's length is its decisions (it stops itself after
        // `maxDecisions`), never the wall clock: so it ends at the same point
        // on any machine, and its end-of-trial checks replay.
        if case .duration(let ns) = settings.stop, settings.schedule == .free {
            control.sleep(upTo: ns)
            control.enter(TrialControl.stop)
        }
        control.watch { endGate.hasAllArrived }
        endGate.waitForAll()
        window.close(workersOf: readsWorkers ? board : nil)
        opening { endGate.release() }
    }

    /// Stops the trial and lets every worker through every gate: for a driver
    /// that could not start all its workers, so those started can end.
    func abandon() {
        control.enter(TrialControl.stop)
        for gate in [warmupGate, measureGate, endGate] { gate.release() }
    }
}
