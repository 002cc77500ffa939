/// One worker's count of the outcomes of the rounds it arbitrated: a small
/// open-addressing table in memory the worker owns, so counting a round is a
/// hash, a probe and an add, with no allocation and no lock. Each distinct
/// outcome is graded once, when first seen; the tables are merged after the run.
///
/// `@unchecked Sendable`: it is a pointer with one owner at a time, the worker
/// while it arbitrates, then whoever merges its report.
struct OutcomeTable: @unchecked Sendable {
    /// A slot: the outcome's values, its counts and grade, and its first round.
    struct Entry {
        var v0 = 0, v1 = 0, v2 = 0, v3 = 0
        /// Values in the outcome; -1 marks an empty slot.
        var width = -1
        var count = 0
        /// Rounds of it in the measured window.
        var measured = 0
        var grade = Grade.acceptable
        /// The first round that showed it, and the worker that arbitrated it.
        var firstRound = 0
    }

    /// How an entry is graded, without the meaning (asked for again when merging).
    enum Grade: UInt8, Sendable {
        case acceptable, interesting, forbidden
    }

    /// Distinct outcomes one worker can hold; a scenario with more (a value
    /// that counts up, say) has the rest counted as ``overflow``.
    static let capacity = 256

    private let slots: UnsafeMutablePointer<Entry>
    /// Rounds whose outcome found no slot (more distinct outcomes than ``capacity``).
    private(set) var overflow = 0
    /// Rounds counted, and those of them in the measured window.
    private(set) var rounds = 0
    private(set) var measuredRounds = 0

    init() {
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: Entry(), count: Self.capacity)
    }

    /// Frees the table; it must not be used afterwards.
    func deallocate() {
        slots.deinitialize(count: Self.capacity)
        slots.deallocate()
    }

    /// Counts `outcome` for `round`. Returns its grade, and whether this is
    /// the first round to show it here; `grade` is called only then.
    @inline(__always)
    mutating func count(_ outcome: RoundOutcome, round: Int, measured: Bool,
                        grade: (RoundOutcome) -> OutcomeGrade) -> (grade: Grade, first: Bool) {
        rounds &+= 1
        if measured { measuredRounds &+= 1 }
        let width = outcome.count
        let v0 = outcome[0], v1 = outcome[1], v2 = outcome[2], v3 = outcome[3]
        var h = UInt64(truncatingIfNeeded: width) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ UInt64(bitPattern: Int64(v0))) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ UInt64(bitPattern: Int64(v1))) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ UInt64(bitPattern: Int64(v2))) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ UInt64(bitPattern: Int64(v3))) &* 0xBF58_476D_1CE4_E5B9
        var i = Int(truncatingIfNeeded: (h ^ (h >> 31)) & UInt64(Self.capacity - 1))
        for _ in 0..<Self.capacity {
            let e = slots + i
            if e.pointee.width == width && e.pointee.v0 == v0 && e.pointee.v1 == v1 && e.pointee.v2 == v2 && e.pointee.v3 == v3 {
                e.pointee.count &+= 1
                if measured { e.pointee.measured &+= 1 }
                return (e.pointee.grade, false)
            }
            if e.pointee.width < 0 {
                let g: Grade
                switch grade(outcome) {
                case .acceptable: g = .acceptable
                case .interesting: g = .interesting
                case .forbidden: g = .forbidden
                }
                e.pointee = Entry(v0: v0, v1: v1, v2: v2, v3: v3, width: width, count: 1, measured: measured ? 1 : 0,
                                  grade: g, firstRound: round)
                return (g, true)
            }
            i = (i &+ 1) & (Self.capacity - 1)
        }
        overflow &+= 1
        return (.acceptable, false)
    }

    /// The entries in use.
    var entries: [Entry] { (0..<Self.capacity).map { slots[$0] }.filter { $0.width >= 0 } }
}

extension OutcomeTable.Entry {
    /// The outcome this entry counts.
    var outcome: RoundOutcome {
        switch width {
        case 0: return RoundOutcome()
        case 1: return RoundOutcome(v0)
        case 2: return RoundOutcome(v0, v1)
        case 3: return RoundOutcome(v0, v1, v2)
        default: return RoundOutcome(v0, v1, v2, v3)
        }
    }
}

extension OutcomeTable {
    /// Every worker's table added up, in the order reports show them
    /// (acceptable, interesting, forbidden; the most frequent first within a
    /// grade), with each grade's meaning. Rounds whose outcome overflowed the
    /// tables are one more entry, `(other)`.
    static func merge(_ tables: [OutcomeTable], grade: (RoundOutcome) -> OutcomeGrade) -> (rounds: Int, measured: Int, outcomes: [OutcomeCount]) {
        var merged: [RoundOutcome: Entry] = [:]
        var overflow = 0
        for table in tables {
            overflow += table.overflow
            for e in table.entries {
                if var m = merged[e.outcome] {
                    m.count += e.count
                    m.measured += e.measured
                    m.firstRound = Swift.min(m.firstRound, e.firstRound)
                    merged[e.outcome] = m
                } else {
                    merged[e.outcome] = e
                }
            }
        }
        let order: (Entry, Entry) -> Bool = { a, b in
            (a.grade.rawValue, -a.count, a.outcome.description) < (b.grade.rawValue, -b.count, b.outcome.description)
        }
        var outcomes = merged.values.sorted(by: order).map { e in
            let g = grade(e.outcome)
            return OutcomeCount(outcome: e.outcome.description, count: e.count, grade: g.name, meaning: g.meaning,
                                firstRound: g == .acceptable ? nil : e.firstRound)
        }
        if overflow > 0 {
            outcomes.append(OutcomeCount(outcome: "(other)", count: overflow, grade: "acceptable",
                                         meaning: "more than \(capacity) distinct outcomes on one worker: these were counted, not told apart"))
        }
        let rounds = tables.reduce(0) { $0 + $1.rounds }
        let measured = tables.reduce(0) { $0 + $1.measuredRounds }
        return (rounds, measured, outcomes)
    }

    /// ``merge(_:grade:)``, then frees the tables: the workers' tables end
    /// here, after the last read of them, and nowhere else (freed earlier,
    /// with the histograms, the merge read freed memory: wrong counts, or a
    /// SIGSEGV once the allocator had handed a worker thread's heap back).
    static func mergeAndFree(_ tables: [OutcomeTable], grade: (RoundOutcome) -> OutcomeGrade) -> (rounds: Int, measured: Int, outcomes: [OutcomeCount]) {
        defer { for table in tables { table.deallocate() } }
        return merge(tables, grade: grade)
    }
}
