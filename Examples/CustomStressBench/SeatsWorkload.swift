import StressKit

/// A team's own workload: the seat map of a booking service. Workers book free
/// seats, cancel their own bookings and audit the map; the invariants are that
/// no seat is ever sold twice and the map agrees with what every worker booked.
struct SeatsWorkload: Workload {
    static let descriptor = WorkloadDescriptor(
        name: "seats",
        summary: "a booking service's seat map: no double booking, the map agrees with the bookings",
        parameters: [
            .integer("seats", "seats in the hall", default: 32, range: 1...100_000),
            .number("audit_ratio", "fraction of operations that audit the whole map", default: 0.05, range: 0...1),
        ]
    )

    /// The seat map in raw memory: 0 for a free seat, else the booking worker + 1.
    /// `@unchecked Sendable` because the strategy under test is what keeps it
    /// safe; without one, races give wrong numbers, which the checks report.
    final class State: @unchecked Sendable {
        let owner: UnsafeMutablePointer<Int>
        let count: Int
        /// Seats each worker holds, one cache line each; only changed inside the
        /// worker's own critical sections, so audits may read them there.
        let held: CacheLineArray<Int>
        let threads: Int

        init(seats: Int, threads: Int) {
            count = seats
            owner = .allocate(capacity: seats)
            owner.initialize(repeating: 0, count: seats)
            self.threads = threads
            held = CacheLineArray(count: threads)
        }

        deinit {
            owner.deallocate()
            held.deallocate()
        }

        /// Seats taken on the map, and seats the workers say they hold.
        func tally() -> (taken: Int, held: Int) {
            var taken = 0, held = 0
            for s in 0..<count where owner[s] != 0 { taken += 1 }
            for t in 0..<threads { held += self.held[t].pointee }
            return (taken, held)
        }
    }

    let seats: Int
    let auditRatio: Double

    init(parameters: WorkloadParameters) throws {
        seats = try parameters.integer("seats")
        auditRatio = try parameters.number("audit_ratio")
    }

    func makeState(threads: Int) -> State { State(seats: seats, threads: threads) }

    func operations() -> [StressOperation<State>] {
        // Arguments are drawn outside any critical section; each step boundary is
        // where a real caller would leave one critical section and enter the next.
        let pickSeat = Step<State>.unguarded("pick-seat") { state, frame in
            frame.r0 = frame.random.next(below: state.count)
            return .next
        }
        let book = StressOperation<State>("book", weight: (1 - auditRatio) / 2, steps: [
            pickSeat,
            .write("book") { state, frame in
                let seat = state.owner + frame.r0
                guard seat.pointee == 0 else { return .finish }  // taken: the customer picks again
                // A fuzz point of our own between the check and the update: with
                // `fuzz: chaos` a worker may pause here, which a correct strategy
                // survives (the lock is held) and a check-then-act bug would not.
                frame.fuzzPoint()
                seat.pointee = frame.thread + 1
                state.held[frame.thread].pointee += 1
                return .next
            },
        ])
        let cancel = StressOperation<State>("cancel", weight: (1 - auditRatio) / 2, steps: [
            pickSeat,
            .write("cancel") { state, frame in
                let seat = state.owner + frame.r0
                guard seat.pointee == frame.thread + 1 else { return .finish }  // not ours
                seat.pointee = 0
                state.held[frame.thread].pointee -= 1
                return .next
            },
        ])
        let audit = StressOperation<State>("audit", weight: auditRatio, steps: [
            .read("audit") { state, _ in
                let (taken, held) = state.tally()
                return taken == held ? .next : .violation("seat map shows \(taken) seats taken but \(held) are booked")
            },
        ])
        return [book, cancel, audit]
    }

    func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        let (taken, held) = state.tally()
        return taken == held ? [] : ["after the run the seat map shows \(taken) seats taken but \(held) are booked"]
    }
}
