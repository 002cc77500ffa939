/// A scenario's rounds as the engine runs them, the scenario's types erased:
/// the states of one stride, the arbiter, the reset, the grading, and what the
/// worker that decides at each meeting keeps between meetings.
///
/// How a stride runs: after a meeting, worker `i` runs role `i` on states
/// `0..<k` in order; they meet (barrier A); worker `w` arbitrates and resets
/// states `w`, `w + n`, ...; they meet again (barrier B), where the last to
/// arrive decides whether to go on and with how many rounds. One meeting
/// pair per `k` rounds is what makes millions of rounds a second possible;
/// `k` grows from 1 while a stride takes under 50 µs, to at most
/// ``maxStride``, and is 1 whenever the trial fuzzes (each round then gets its
/// own stagger and, under PCT, its own priorities).
final class RoundProgram: @unchecked Sendable {
    // @unchecked: `states` is raw memory every worker touches, in turns the
    // two barriers order (roles on all states, then each state arbitrated by
    // one worker); the decision fields are touched only by the one worker
    // that decides, while every other waits at barrier B.
    static let maxStride = 1024

    /// The most rounds in one stride for this scenario, and so the states
    /// made up front (``ScenarioDescriptor/maxStride``).
    let strideLimit: Int
    let roles: Int
    let states: UnsafeMutablePointer<ErasedState>
    let arbiter: @Sendable (ErasedState) -> RoundOutcome
    let reset: @Sendable (ErasedState) -> ErasedState
    let grade: @Sendable (RoundOutcome) -> OutcomeGrade
    /// The site id published while arbitrating.
    let arbiterSite: Int
    let threadBarriers: (roles: RoundBarrier, arbitration: RoundBarrier)
    let taskBarriers: (roles: AsyncRoundBarrier, arbitration: AsyncRoundBarrier)
    private let fuzzes: Bool
    private let perRoundPCT: (any FuzzCoordinator)?

    // The decider's state.
    private var stride = 1
    private var strideStartNs: UInt64 = 0
    /// Rounds left in a count-bound window (`ops` per worker is rounds).
    private var roundsLeft: Int?

    init(roles: Int, makeState: () -> ErasedState, arbiter: @escaping @Sendable (ErasedState) -> RoundOutcome,
         reset: @escaping @Sendable (ErasedState) -> ErasedState, grade: @escaping @Sendable (RoundOutcome) -> OutcomeGrade,
         arbiterSite: Int, settings: TrialSettings, fuzz: (any FuzzCoordinator)?, strideLimit: Int = RoundProgram.maxStride) {
        self.roles = roles
        self.strideLimit = Swift.max(1, Swift.min(strideLimit, Self.maxStride))
        states = .allocate(capacity: self.strideLimit)
        for i in 0..<self.strideLimit { (states + i).initialize(to: makeState()) }
        self.arbiter = arbiter
        self.reset = reset
        self.grade = grade
        self.arbiterSite = arbiterSite
        threadBarriers = (RoundBarrier(parties: roles), RoundBarrier(parties: roles))
        taskBarriers = (AsyncRoundBarrier(parties: roles), AsyncRoundBarrier(parties: roles))
        // Under control every round is an execution of its own: one state per
        // stride (a stride of 1), and the scheduler told of each round.
        fuzzes = settings.fuzz.isActive || settings.schedule == .controlled
        perRoundPCT = settings.fuzz.pctScope == .trial && settings.schedule == .free ? nil : fuzz
        roundsLeft = settings.stop.opsPerThread
    }

    deinit {
        states.deinitialize(count: strideLimit)
        states.deallocate()
    }

    /// The first stride of a phase: every worker reads it as the phase
    /// begins, and each gets the same answer.
    var firstStride: Int { stride }

    /// Called by the coordinator while every worker waits at a phase's gate
    /// (so nobody decides): the phase's first stride, its clock and, before
    /// the first round of all, its PCT schedule.
    func prepare(measured: Bool) {
        if strideStartNs == 0 { perRoundPCT?.beginRound(0) }
        strideStartNs = MonotonicClock.now()
        if measured, let left = roundsLeft { stride = Swift.min(stride, left) }
    }

    /// At barrier B, by the last worker to arrive: 0 to leave the loop (the
    /// trial's phase is no longer `phase`, or a count-bound window is done),
    /// else the next stride, and a fresh PCT schedule for its round.
    func decide(phase: Int, control: TrialControl, nextRound: Int, measured: Bool) -> Int {
        if measured, let left = roundsLeft {
            roundsLeft = left - stride
        }
        guard control.current == phase, (roundsLeft ?? 1) > 0 || !measured else { return 0 }
        let now = MonotonicClock.now()
        if fuzzes {
            stride = 1
        } else if now &- strideStartNs < 50_000 {
            stride = Swift.min(stride * 2, strideLimit)
        } else if now &- strideStartNs > 1_000_000 {
            stride = Swift.max(stride / 2, 1)
        }
        if measured, let left = roundsLeft { stride = Swift.min(stride, left) }
        strideStartNs = now
        perRoundPCT?.beginRound(nextRound)
        return stride
    }
}
