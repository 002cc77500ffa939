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
/// Operations that are slow against any timing cost (the first round's
/// timed ops take ``slowOperationNs`` or more each) end the probe at once with
/// interval 1, without untimed stretches, so their histogram holds every one.
///
/// Fixed-size storage: the probe runs inside the measured loop, which allocates
/// nothing.
struct AutoSamplingProbe {
    /// Timed operations back to back in each round.
    static let timedPerRound = 32
    /// Untimed operations after each round's timed ones.
    static let untimedPerRound = 64
    /// Rounds; the median of their measurements is used.
    static let rounds = 4 // the storage below holds 4
    /// A timed operation this slow (or slower) needs no sampling: timing costs
    /// about 30 to 60 ns, under 5% of it.
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
    /// The start of the round's first timed operation.
    private var roundStart: UInt64 = 0
    /// The start of the last round's last timed operation, while its untimed
    /// stretch runs.
    private var stretchStart: UInt64?
    /// Per round, ticks per timed and per untimed operation.
    private var timedTicks = InlineArray<4, Double>(repeating: 0)
    private var untimedTicks = InlineArray<4, Double>(repeating: 0)

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
                    untimedNs: Self.median(untimedTicks) * nanosecondsPerTick,
                    timedNs: Self.median(timedTicks) * nanosecondsPerTick))
            }
            timedInRound = 0
        }
        if timedInRound == 0 { roundStart = start }
        timedInRound += 1
        guard timedInRound == Self.timedPerRound else { return .time }
        let perTimed = Double(start &- roundStart) / Double(Self.timedPerRound - 1)
        if round == 0 && perTimed * nanosecondsPerTick >= Self.slowOperationNs { return .interval(1) }
        timedTicks[round] = perTimed
        stretchStart = start
        return .skip(Self.untimedPerRound)
    }

    /// The median of the rounds' figures: the mean of the middle two, which
    /// are what is left when the smallest and the largest are taken off (no
    /// array, no allocation).
    private static func median(_ values: InlineArray<4, Double>) -> Double {
        let a = values[0], b = values[1], c = values[2], d = values[3]
        let smallest = Swift.min(Swift.min(a, b), Swift.min(c, d))
        let largest = Swift.max(Swift.max(a, b), Swift.max(c, d))
        return (a + b + c + d - smallest - largest) / 2
    }
}
