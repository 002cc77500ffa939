/// The named fuzzing profiles. Each is a preset of ``FuzzSettings``; a plan can
/// start from one and tune any field.
public enum FuzzProfile: String, Sendable, Codable, CaseIterable {
    /// No perturbation: the plain stress loop. The fuzz points cost one branch
    /// on a worker-local flag each.
    case off
    /// Rare short busy spins (1% of points, 50 ns to 2 µs): barely changes throughput.
    case light
    /// `sched_yield` (or `Task.yield()` in tasks) at 10% of points.
    case yield
    /// Everything, rr-chaos style: yields (5%), spins of 50 ns to 50 µs (5%),
    /// sleeps of 10 µs to 2 ms (0.2%), and starvation of one victim worker
    /// (holds of 1 to 5 ms, at most 10% of the run), plus a start stagger.
    case chaos
    /// Soft Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010):
    /// random worker priorities and depth−1 priority change points; at a point a
    /// worker waits (capped) while a higher-priority worker is runnable. The OS
    /// still schedules, so PCT's probability bound does not apply.
    case pct
    /// Rotates chaos, pct, yield and light across repetitions.
    case portfolio
}

/// What the fuzzer does at each fuzz point. Probabilities are per point and
/// independent; durations are drawn log-uniformly between their bounds.
public struct FuzzSettings: Sendable, Codable, Hashable {
    /// The profile these settings started from (after portfolio rotation, the
    /// profile actually used).
    public var profile: FuzzProfile
    /// Probability of a `sched_yield` / `Task.yield()`.
    public var yieldProbability: Double = 0
    /// Probability of a busy spin (bounds: ``spinMin`` and ``spinMax``).
    public var spinProbability: Double = 0
    // The bounds in nanoseconds, as the fuzz points draw them and the
    // results' JSON records them (the keys `spinMinNs`, …); the public face is the
    // `Duration` accessors below.
    package var spinMinNanoseconds: UInt64 = 50
    package var spinMaxNanoseconds: UInt64 = 50_000
    /// Probability of a sleep (bounds: ``sleepMin`` and ``sleepMax``).
    public var sleepProbability: Double = 0
    package var sleepMinNanoseconds: UInt64 = 10_000
    package var sleepMaxNanoseconds: UInt64 = 2_000_000
    /// Probability, at each of the victim worker's points, of a starvation hold
    /// (a sleep of ``starveMin``...``starveMax``), capped to ``starveShare`` of the
    /// victim's running time.
    public var starveProbability: Double = 0
    package var starveMinNanoseconds: UInt64 = 1_000_000
    package var starveMaxNanoseconds: UInt64 = 5_000_000
    /// The largest share of the victim worker's running time that starvation
    /// holds may take (0.1: a tenth); past it the victim is left alone.
    public var starveShare: Double = 0.1
    /// PCT depth d (d−1 change points); 0 turns PCT off.
    public var pctDepth: Int = 0
    package var pctWaitCapNanoseconds: UInt64 = 100_000
    package var staggerMaxNanoseconds: UInt64 = 0
    /// Scenarios: PCT draws its priority order and change points afresh for
    /// every round (`round`, the default when nil) or once for the whole
    /// trial (`trial`, as for workloads: for comparison).
    public var pctScope: PCTScope?
    /// `portfolio` when these settings are one repetition's turn of a
    /// portfolio (``forRepetition(_:)``), nil otherwise: the record then says
    /// both the profile that ran and the plan's choice, and a baseline
    /// comparison treats the repetitions of a portfolio as one cell.
    public var rotatedFrom: FuzzProfile?

    /// The preset for `profile` (portfolio starts as chaos; see ``forRepetition(_:)``).
    ///
    /// - Parameter profile: The profile whose preset to start from.
    public init(_ profile: FuzzProfile) {
        self.profile = profile
        switch profile {
        case .off: break
        case .light:
            spinProbability = 0.01
            spinMaxNanoseconds = 2_000
        case .yield:
            yieldProbability = 0.1
            staggerMaxNanoseconds = 100_000
        case .chaos, .portfolio:
            yieldProbability = 0.05
            spinProbability = 0.05
            sleepProbability = 0.002
            starveProbability = 0.001
            staggerMaxNanoseconds = 1_000_000
        case .pct:
            pctDepth = 3
            yieldProbability = 0.01
            staggerMaxNanoseconds = 100_000
        }
    }

    /// Whether any perturbation is on.
    public var isActive: Bool {
        yieldProbability > 0 || spinProbability > 0 || sleepProbability > 0 || starveProbability > 0
            || pctDepth > 0 || staggerMaxNanoseconds > 0
    }

    /// The settings repetition `r` uses: a portfolio rotates through chaos, pct,
    /// yield and light; every other profile is the same for all repetitions.
    ///
    /// - Parameter r: The repetition's number (0-based).
    /// - Returns: The settings of that repetition.
    public func forRepetition(_ r: Int) -> FuzzSettings {
        guard profile == .portfolio else { return self }
        let rotation: [FuzzProfile] = [.chaos, .pct, .yield, .light]
        var turn = FuzzSettings(rotation[r % rotation.count])
        turn.rotatedFrom = .portfolio
        return turn
    }

    /// The keys a plan's `fuzz` mapping accepts besides `profile`.
    package static let tunableKeys = [
        "yield", "spin", "spin_min", "spin_max", "sleep", "sleep_min", "sleep_max",
        "starve", "starve_min", "starve_max", "starve_share", "pct_depth", "pct_wait_cap", "stagger", "pct_scope",
    ]

    /// The results' JSON keys: the bounds keep the names they had when they
    /// were public integers.
    private enum CodingKeys: String, CodingKey {
        case profile
        case yieldProbability
        case spinProbability
        case spinMinNanoseconds = "spinMinNs"
        case spinMaxNanoseconds = "spinMaxNs"
        case sleepProbability
        case sleepMinNanoseconds = "sleepMinNs"
        case sleepMaxNanoseconds = "sleepMaxNs"
        case starveProbability
        case starveMinNanoseconds = "starveMinNs"
        case starveMaxNanoseconds = "starveMaxNs"
        case starveShare
        case pctDepth
        case pctWaitCapNanoseconds = "pctWaitCapNs"
        case staggerMaxNanoseconds = "staggerMaxNs"
        case pctScope
        case rotatedFrom
    }
}

extension FuzzSettings {
    /// The shortest busy spin (plan key `spin_min`).
    public var spinMin: Duration {
        get { .nanoseconds(spinMinNanoseconds) }
        set { spinMinNanoseconds = Quantities.nanoseconds(newValue) }
    }
    /// The longest busy spin (plan key `spin_max`).
    public var spinMax: Duration {
        get { .nanoseconds(spinMaxNanoseconds) }
        set { spinMaxNanoseconds = Quantities.nanoseconds(newValue) }
    }
    /// The shortest sleep (plan key `sleep_min`).
    public var sleepMin: Duration {
        get { .nanoseconds(sleepMinNanoseconds) }
        set { sleepMinNanoseconds = Quantities.nanoseconds(newValue) }
    }
    /// The longest sleep (plan key `sleep_max`).
    public var sleepMax: Duration {
        get { .nanoseconds(sleepMaxNanoseconds) }
        set { sleepMaxNanoseconds = Quantities.nanoseconds(newValue) }
    }
    /// The shortest starvation hold of the victim worker (plan key `starve_min`).
    public var starveMin: Duration {
        get { .nanoseconds(starveMinNanoseconds) }
        set { starveMinNanoseconds = Quantities.nanoseconds(newValue) }
    }
    /// The longest starvation hold of the victim worker (plan key `starve_max`).
    public var starveMax: Duration {
        get { .nanoseconds(starveMaxNanoseconds) }
        set { starveMaxNanoseconds = Quantities.nanoseconds(newValue) }
    }
    /// The longest a worker waits at one fuzz point for higher-priority
    /// workers under PCT (plan key `pct_wait_cap`).
    public var pctWaitCap: Duration {
        get { .nanoseconds(pctWaitCapNanoseconds) }
        set { pctWaitCapNanoseconds = Quantities.nanoseconds(newValue) }
    }
    /// The longest start stagger: each worker sleeps a seeded 0...this after
    /// the start barrier (and, in a scenario, before its role in every
    /// round); zero turns it off (plan key `stagger`).
    public var staggerMax: Duration {
        get { .nanoseconds(staggerMaxNanoseconds) }
        set { staggerMaxNanoseconds = Quantities.nanoseconds(newValue) }
    }
}

/// Over what a scenario's PCT draws its priorities and change points.
public enum PCTScope: String, Sendable, Codable, CaseIterable {
    /// Afresh for every round: the one-shot race PCT was made for.
    case round
    /// Once for the whole trial, spread over its fuzz points.
    case trial
}
