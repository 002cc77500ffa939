/// The name of a scheduling policy: what a plan's `fuzz` key, `--fuzz` and
/// `StressTest.fuzz(_:)` choose, and what the records' `fuzz` field and
/// CSV column hold. The built-in ones are below; a team can register more.
public struct FuzzProfile: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The policy's name, as plans spell it.
    public let rawValue: String

    /// The profile called `rawValue`, or nil when no policy of this process
    /// has that name (the way plans and `--fuzz` check a name).
    ///
    /// - Parameter rawValue: The policy's name: `off`, `light`, `yield`, `chaos`, `pct`, `portfolio` or a registered one.
    public init?(rawValue: String) {
        guard SchedulingPolicies.named(rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// A name taken as it is, known or not (records of other processes).
    init(name: String) { rawValue = name }

    /// Decodes the bare name, whether or not this process knows the policy:
    /// a record from a run with a team's own policy still reads back.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Every policy this process knows: the built-ins in the order below,
    /// then any a team registered.
    public static var allCases: [FuzzProfile] { SchedulingPolicies.names.map(FuzzProfile.init(name:)) }

    /// The name.
    public var description: String { rawValue }

    /// No perturbation: the plain stress loop. The fuzz points cost one branch
    /// on a worker-local flag each.
    public static let off = FuzzProfile(name: "off")
    /// Rare short busy spins (1% of points, 50 ns to 2 µs): barely changes throughput.
    public static let light = FuzzProfile(name: "light")
    /// `sched_yield` (or `Task.yield()` in tasks) at 10% of points.
    public static let yield = FuzzProfile(name: "yield")
    /// Everything, rr-chaos style: yields (5%), spins of 50 ns to 50 µs (5%),
    /// sleeps of 10 µs to 2 ms (0.2%), and starvation of one victim worker
    /// (holds of 1 to 5 ms, at most 10% of the run), plus a start stagger.
    public static let chaos = FuzzProfile(name: "chaos")
    /// Soft Probabilistic Concurrency Testing (Burckhardt et al., ASPLOS 2010):
    /// random worker priorities and depth−1 priority change points; at a point a
    /// worker waits (capped) while a higher-priority worker is runnable. The OS
    /// still schedules, so PCT's probability bound does not apply.
    public static let pct = FuzzProfile(name: "pct")
    /// Rotates chaos, pct, yield and light across repetitions.
    public static let portfolio = FuzzProfile(name: "portfolio")
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
    /// Under controlled scheduling: the probability, at each decision, that
    /// one worker waiting on a condition is woken with no signal (a spurious
    /// wake-up, which real conditions allow and correct code tolerates by
    /// waiting in a loop). Plan key `spurious`; nil (the default) for none.
    public var spuriousWakeups: Double?

    /// The preset of the scheduling policy `profile` names (portfolio
    /// starts as chaos; see ``forRepetition(_:)``). A name no policy of this
    /// process has perturbs nothing.
    ///
    /// - Parameter profile: The profile whose preset to start from.
    public init(_ profile: FuzzProfile) {
        self.profile = profile
        SchedulingPolicies.named(profile.rawValue)?.configure(&self)
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
        let rotation = SchedulingPolicies.policy(for: profile).rotation
        guard !rotation.isEmpty else { return self }
        var turn = FuzzSettings(rotation[r % rotation.count])
        turn.rotatedFrom = profile
        return turn
    }

    /// The keys a plan's `fuzz` mapping accepts besides `profile`.
    package static let tunableKeys = [
        "yield", "spin", "spin_min", "spin_max", "sleep", "sleep_min", "sleep_max",
        "starve", "starve_min", "starve_max", "starve_share", "pct_depth", "pct_wait_cap", "stagger", "pct_scope", "spurious",
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
        case spuriousWakeups
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
