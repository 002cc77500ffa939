/// `queue`: a bounded producer/consumer buffer (a ring of `capacity` slots).
///
/// Every worker both produces and consumes, by weight. A producer that finds the
/// buffer full, or a consumer that finds it empty, just ends its operation (a
/// `try` variant of put and take, so nothing blocks inside a critical section).
/// Each item carries its producer and that producer's sequence number (1, 2, 3,
/// ...) and a checksum. Invariants, checked at every take and at the end:
/// - **no item lost** and **none duplicated**: the items of one producer are
///   taken exactly once each;
/// - **per-producer order**: they are taken in the order they were put (the
///   buffer is FIFO, so the next item of producer p taken anywhere must be p's
///   next sequence number);
/// - **count within capacity**: the buffer never holds more than `capacity`
///   items, nor fewer than none;
/// - **item integrity**: every item taken is one some producer put.
///
/// The `split-take` variant is a bug: a take reads the item at the head in
/// one critical section (the read side) and moves the head past it in
/// another, so two consumers can take the same item, and the head then
/// skips one.
package struct QueueWorkload: Workload {
    public static let descriptor = WorkloadDescriptor(
        name: "queue",
        summary: "bounded producer/consumer ring buffer; nothing lost or duplicated, per-producer order, count within capacity",
        parameters: [
            .integer("capacity", "slots in the buffer", default: 64, range: 1...1_000_000),
            .number("produce_ratio", "fraction of operations that put an item (the rest take one)", default: 0.5, range: 0...1),
            .choice("variant", "correct, or split-take: read the head item and move the head in two critical sections (an item taken twice)",
                    default: "correct", choices: ["correct", "split-take"]),
        ]
    )

    /// What one worker did, in its own memory (written only by its own steps).
    struct Producer {
        /// The last sequence number it put.
        var produced = 0
        /// Items it took.
        var consumed = 0
    }

    /// Items ever put and ever taken: the count is `tail - head`, the next slot
    /// to put is `tail % capacity`, the next to take `head % capacity`.
    struct Counters {
        var head = 0
        var tail = 0
        /// The most items the buffer held at once.
        var highWater = 0
    }

    /// The ring, its counters, and per-producer bookkeeping.
    public final class State: @unchecked Sendable {
        // @unchecked: the strategy under test is what keeps this safe; under
        // `unsynchronized` the races are the point and the checks catch them.
        let ring: UnsafeMutablePointer<Int>
        let capacity: Int
        /// The ring's counters (see ``Counters``).
        let counters: UnsafeMutablePointer<Counters>
        /// For each producer, the sequence number of its last item taken by
        /// anyone (shared, guarded like the ring).
        let lastTaken: UnsafeMutablePointer<Int>
        let producers: CacheLineArray<Producer>
        let threads: Int

        init(capacity: Int, threads: Int) {
            self.capacity = capacity
            self.threads = threads
            ring = .allocate(capacity: capacity)
            ring.initialize(repeating: 0, count: capacity)
            counters = .allocate(capacity: 1)
            counters.initialize(to: Counters())
            lastTaken = .allocate(capacity: threads)
            lastTaken.initialize(repeating: 0, count: threads)
            producers = CacheLineArray(count: threads)
        }

        deinit {
            ring.deallocate()
            counters.deallocate()
            lastTaken.deallocate()
            producers.deallocate()
        }

        /// The ring index for an item counter (safe for any value a race leaves).
        @inline(__always)
        func index(_ counter: Int) -> Int { Int(UInt(bitPattern: counter) % UInt(capacity)) }
    }

    /// An item: sequence number (up to 2^35), producer (12 bits) and a 16-bit checksum.
    enum Item {
        static func encode(producer: Int, sequence: Int) -> Int {
            let s = UInt64(truncatingIfNeeded: sequence) & 0x7_FFFF_FFFF
            let p = UInt64(truncatingIfNeeded: producer) & 0xFFF
            return Int(Int64(bitPattern: s << 28 | p << 16 | checksum(s, p)))
        }

        @inline(__always)
        static func checksum(_ sequence: UInt64, _ producer: UInt64) -> UInt64 {
            SplitMix64.mix(sequence << 12 | producer) & 0xFFFF
        }

        /// The producer and sequence number, or nil when the checksum does not match.
        @inline(__always)
        static func decode(_ item: Int) -> (producer: Int, sequence: Int)? {
            let bits = UInt64(bitPattern: Int64(item))
            let s = bits >> 28, p = bits >> 16 & 0xFFF
            guard bits & 0xFFFF == checksum(s, p) else { return nil }
            return (Int(p), Int(s))
        }
    }

    let capacity: Int
    let produceRatio: Double
    let splitTake: Bool

    public init(parameters: WorkloadParameters) throws {
        capacity = try parameters.integer("capacity")
        produceRatio = try parameters.number("produce_ratio")
        splitTake = try parameters.text("variant") == "split-take"
    }

    public func makeState(threads: Int) -> State { State(capacity: capacity, threads: threads) }

    public func operations() -> [StressOperation<State>] {
        let put = StressOperation<State>("put", weight: produceRatio, steps: [
            .write("put") { state, frame in
                let count = state.counters.pointee.tail &- state.counters.pointee.head
                guard count < state.capacity else { return .finish }
                let me = state.producers[frame.thread]
                let sequence = me.pointee.produced &+ 1
                state.ring[state.index(state.counters.pointee.tail)] = Item.encode(producer: frame.thread, sequence: sequence)
                state.counters.pointee.tail &+= 1
                me.pointee.produced = sequence
                let now = state.counters.pointee.tail &- state.counters.pointee.head
                if now > state.counters.pointee.highWater { state.counters.pointee.highWater = now }
                guard now <= state.capacity else {
                    return .violation("count within capacity: the buffer holds \(now) items, capacity \(state.capacity)")
                }
                return .next
            },
        ])
        let take = StressOperation<State>("take", weight: 1 - produceRatio, steps: splitTake ? Self.splitTakeSteps() : [
            .write("take") { state, frame in
                let count = state.counters.pointee.tail &- state.counters.pointee.head
                guard count > 0 else {
                    return count == 0 ? .finish : .violation("count within capacity: the buffer holds \(count) items")
                }
                let item = state.ring[state.index(state.counters.pointee.head)]
                state.counters.pointee.head &+= 1
                state.producers[frame.thread].pointee.consumed &+= 1
                return Self.check(taken: item, state).map { .violation($0) } ?? .next
            },
        ])
        return [put, take]
    }

    /// `split-take`: the head item read on the read side, the head moved on
    /// the write side, in two critical sections.
    private static func splitTakeSteps() -> [Step<State>] {
        [
            .read("peek") { state, frame in
                let count = state.counters.pointee.tail &- state.counters.pointee.head
                guard count > 0 else { return .finish }
                frame.r2 = state.ring[state.index(state.counters.pointee.head)]
                return .next
            },
            .write("advance") { state, frame in
                state.counters.pointee.head &+= 1
                state.producers[frame.thread].pointee.consumed &+= 1
                return Self.check(taken: frame.r2, state).map { .violation($0) } ?? .next
            },
        ]
    }

    /// Checks an item just taken against its producer's last item taken.
    private static func check(taken item: Int, _ state: State) -> String? {
        guard let (producer, sequence) = Item.decode(item), producer < state.threads else {
            return "item integrity: took a value no producer put (\(item))"
        }
        let expected = state.lastTaken[producer] &+ 1
        state.lastTaken[producer] = max(sequence, state.lastTaken[producer])
        if sequence == expected { return nil }
        if sequence > expected {
            return "no item lost: took producer \(producer)'s item \(sequence) but its items \(expected)...\(sequence - 1) were never taken"
        }
        return "no item duplicated / per-producer order: took producer \(producer)'s item \(sequence) after its item \(expected - 1)"
    }

    public func finalCheck(_ state: State, _ totals: RunTotals) -> [String] {
        var broken: [String] = []
        let count = state.counters.pointee.tail &- state.counters.pointee.head
        guard count >= 0 && count <= state.capacity else {
            return ["count within capacity: after the run the buffer holds \(count) items, capacity \(state.capacity)"]
        }
        // What is left must be, for each producer, exactly the items after its last one taken.
        for i in 0..<count {
            if let problem = Self.check(taken: state.ring[state.index(state.counters.pointee.head &+ i)], state) {
                broken.append(problem + " (among the items left after the run)")
                break
            }
        }
        var produced = 0, consumed = 0
        for p in 0..<state.threads {
            let mine = state.producers[p].pointee
            produced &+= mine.produced
            consumed &+= mine.consumed
            if state.lastTaken[p] != mine.produced, broken.count < 5 {
                broken.append("no item lost: producer \(p) put \(mine.produced) items but the last of them taken or left is \(state.lastTaken[p])")
            }
        }
        if produced != consumed &+ count {
            broken.append("no item lost: \(produced) items were put, \(consumed) taken and \(count) are left")
        }
        return broken
    }

    public func metrics(_ state: State) -> [String: Double] {
        ["high_water": Double(state.counters.pointee.highWater)]
    }
}
