/// A partition's history as the search walks it: every call and return in
/// real-time order, in a doubly linked list held in index arrays, so that
/// linearizing an operation (unlinking its call and return) and taking it
/// back (relinking them, in reverse order) cost a few stores and allocate
/// nothing (Knuth's dancing links).
///
/// Entry 0 is the head and the last entry the tail, both sentinels; entries
/// between are events. A call entry's operation may be linearized next
/// exactly when no return entry precedes it in the list: every operation
/// still unlinked that returned before this call was made must come first.
struct HistoryEvents {
    /// The next entry in the list (the tail's is itself).
    private(set) var next: [Int32]
    /// The previous entry in the list (the head's is itself).
    private(set) var previous: [Int32]
    /// The operation of each event entry (-1 for the sentinels).
    let operationOf: [Int32]
    /// Whether each entry is a call (false for returns and sentinels).
    let isCall: [Bool]
    /// Each operation's call entry.
    let callEntry: [Int32]
    /// Each operation's return entry.
    let returnEntry: [Int32]

    /// The head sentinel: `next[head]` is the first event still linked.
    var head: Int { 0 }
    /// The tail sentinel.
    var tail: Int { next.count - 1 }

    /// The list of `called.count` operations' calls and returns, in the
    /// order of the clock: a call read at the same instant as a return
    /// sorts before it, so the two operations overlap (an operation precedes
    /// another only when it returned strictly before the other was called).
    ///
    /// - Parameters:
    ///   - called: Each operation's call time.
    ///   - returned: Each operation's return time, nil when pending: its
    ///     return sorts after every completed one, so the search never
    ///     has to reach it.
    init(called: [UInt64], returned: [UInt64?]) {
        let count = called.count
        // (time, 0 call / 1 return / 2 pending return, operation), sorted.
        var events: [(time: UInt64, kind: UInt8, operation: Int32)] = []
        events.reserveCapacity(2 * count)
        for operation in 0..<count {
            // A return before its own call is a recording fault; read it as
            // an instantaneous operation rather than an impossible one.
            events.append((called[operation], 0, Int32(operation)))
            if let time = returned[operation] {
                events.append((max(time, called[operation]), 1, Int32(operation)))
            } else {
                events.append((UInt64.max, 2, Int32(operation)))
            }
        }
        events.sort { ($0.time, $0.kind, $0.operation) < ($1.time, $1.kind, $1.operation) }

        let entries = 2 * count + 2
        var operationOf = [Int32](repeating: -1, count: entries)
        var isCall = [Bool](repeating: false, count: entries)
        var callEntry = [Int32](repeating: 0, count: count)
        var returnEntry = [Int32](repeating: 0, count: count)
        for (position, event) in events.enumerated() {
            let entry = position + 1
            operationOf[entry] = event.operation
            if event.kind == 0 {
                isCall[entry] = true
                callEntry[Int(event.operation)] = Int32(entry)
            } else {
                returnEntry[Int(event.operation)] = Int32(entry)
            }
        }
        self.operationOf = operationOf
        self.isCall = isCall
        self.callEntry = callEntry
        self.returnEntry = returnEntry
        next = (0..<entries).map { Int32(Swift.min($0 + 1, entries - 1)) }
        previous = (0..<entries).map { Int32(Swift.max($0 - 1, 0)) }
    }

    /// Unlinks `operation`'s call and return: it is linearized.
    mutating func unlink(_ operation: Int) {
        unlinkEntry(Int(callEntry[operation]))
        unlinkEntry(Int(returnEntry[operation]))
    }

    /// Links `operation`'s return and call back, the reverse of `unlink`;
    /// valid only for the operation unlinked last and not yet relinked.
    mutating func relink(_ operation: Int) {
        relinkEntry(Int(returnEntry[operation]))
        relinkEntry(Int(callEntry[operation]))
    }

    private mutating func unlinkEntry(_ entry: Int) {
        let before = Int(previous[entry])
        let after = Int(next[entry])
        next[before] = Int32(after)
        previous[after] = Int32(before)
    }

    private mutating func relinkEntry(_ entry: Int) {
        // The entry's own links still name its neighbours of the moment it
        // was unlinked; everything unlinked since has been relinked.
        next[Int(previous[entry])] = Int32(entry)
        previous[Int(next[entry])] = Int32(entry)
    }
}
