/// How `sample: auto` finds what timing an operation costs: each worker, as
/// its measured loop starts, measures it rather than estimating it from the
/// clock's read cost.
///
/// In each of ``rounds`` rounds the worker times ``timedPerRound`` operations
/// back to back, then runs ``untimedPerRound`` untimed. The starts of the timed
/// operations are clock readings taken anyway, so the probe reads the clock no
/// more than timing does:
/// - a timed operation costs (start of the round's last timed op − start of its
///   first) / (timed ops − 1): whole loop iterations, with every clock read,
///   the recording and the bookkeeping in them;
/// - an untimed one costs (start of the next round's first timed op − start of
///   this round's last − one timed op) / untimed ops.
///
/// The medians of the rounds (a preemption in one round does not decide the
/// interval) give the timing's cost per operation, and
/// ``TimingSettings/autoInterval(untimedNs:timedNs:)`` the interval. Modelling
/// the cost from the read cost instead (the previous way) missed by a factor
/// of two for a 1-thread lock: reads overlap the work around them, recording
/// and the acquire timestamp cost more than their instructions suggest.
///
/// Operations that are slow against any timing cost (every one of the first
/// round's timed ops took ``slowOperationNs`` or more, start to start: the
/// shortest gap decides, so one preempted op does not) end the probe at once
/// with interval 1, without untimed stretches, so their histogram holds every
/// one.
///
/// The untimed operations of the probe are not in the histogram (the timed
/// ones count once each): up to ``rounds`` × ``untimedPerRound`` per worker, as
/// with any sampled operation.
///
/// Fixed-size, non-generic storage (``Rounds``): the probe runs inside the
/// measured loop, which allocates nothing, not even once (a generic container
/// such as `SIMD4` or `InlineArray` has its type metadata or a conformance
/// made at first use, on the heap, in an unoptimized build).
struct AutoSamplingProbe {
    /// Timed operations back to back in each round.
    static let timedPerRound = 32
    /// Untimed operations after each round's timed ones (as many as the
    /// specialized loop runs in one batch, so a stretch is one batch there).
    static let untimedPerRound = 64
    /// Rounds; the median of their measurements is used.
    static let rounds = Rounds.count
    /// A timed operation this slow (or slower) is not sampled: timing costs
    /// about 30 to 60 ns, 2 to 4% of it, more than ``TimingSettings/autoClockShare``
    /// but a price worth paying there for a histogram of every operation and
    /// the true max.
    static let slowOperationNs = 1_500.0

    /// What the worker does next.
    enum Next: Equatable {
        /// Time the next operation too.
        case time
        /// Run this many operations untimed, then time one.
        case skip(Int)
        /// The probe is over: time one operation in this many from now on.
        case interval(Int)
    }

    private var round = 0
    private var timedInRound = 0
    /// The start of the round's first timed operation, and of the last one.
    private var roundStart: UInt64 = 0
    private var lastStart: UInt64 = 0
    /// Round 0's shortest gap between two timed starts (one timed operation).
    private var shortestGap = UInt64.max
    /// The start of the last round's last timed operation, while its untimed
    /// stretch runs.
    private var stretchStart: UInt64?
    /// Per round, ticks per timed and per untimed operation.
    private var timedTicks = Rounds()
    private var untimedTicks = Rounds()

    /// Takes a timed operation's start reading (raw ticks); says what to do next.
    mutating func add(start: UInt64, nanosecondsPerTick: Double) -> Next {
        if let anchor = stretchStart {
            // The untimed stretch is over: it ran from the previous timed op's
            // start, through that op, to this start.
            let span = Double(start &- anchor) - timedTicks[round]
            untimedTicks[round] = Swift.max(span, 0) / Double(Self.untimedPerRound)
            stretchStart = nil
            round += 1
            if round == Self.rounds {
                return .interval(TimingSettings.autoInterval(
                    untimedNs: untimedTicks.median * nanosecondsPerTick,
                    timedNs: timedTicks.median * nanosecondsPerTick))
            }
            timedInRound = 0
        }
        if timedInRound == 0 {
            roundStart = start
        } else if round == 0 {
            shortestGap = Swift.min(shortestGap, start &- lastStart)
        }
        lastStart = start
        timedInRound += 1
        guard timedInRound == Self.timedPerRound else { return .time }
        if round == 0 && Double(shortestGap) * nanosecondsPerTick >= Self.slowOperationNs { return .interval(1) }
        let perTimed = Double(start &- roundStart) / Double(Self.timedPerRound - 1)
        timedTicks[round] = perTimed
        stretchStart = start
        return .skip(Self.untimedPerRound)
    }

    /// One figure per round.
    struct Rounds {
        static let count = 4
        private var a = 0.0, b = 0.0, c = 0.0, d = 0.0

        subscript(round: Int) -> Double {
            get {
                switch round {
                case 0: a
                case 1: b
                case 2: c
                default: d
                }
            }
            set {
                switch round {
                case 0: a = newValue
                case 1: b = newValue
                case 2: c = newValue
                default: d = newValue
                }
            }
        }

        /// The median: the mean of the middle two, which are what is left when
        /// the smallest and the largest are taken off.
        var median: Double {
            let smallest = Swift.min(Swift.min(a, b), Swift.min(c, d))
            let largest = Swift.max(Swift.max(a, b), Swift.max(c, d))
            return (a + b + c + d - smallest - largest) / 2
        }
    }
}
