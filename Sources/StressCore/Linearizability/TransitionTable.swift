/// What each operation did to each model state, once worked out: the search
/// tries the same operation from the same state again and again (every
/// rescan of the candidates after a step forward or back), and a lookup here
/// is a few loads where applying the model copies its state and runs the
/// user's code.
struct TransitionTable {
    /// What a (state, operation) pair gives: the next state's number, or
    /// `mismatch` when the operation's recorded result is not the model's.
    static var mismatch: Int32 { -1 }

    /// (state << 32 | operation) per slot, `empty` when free.
    private var keys: [UInt64]
    private var values: [Int32]
    private var count = 0
    private static var empty: UInt64 { .max }

    init() {
        keys = [UInt64](repeating: Self.empty, count: 256)
        values = [Int32](repeating: 0, count: 256)
    }

    /// The next state of `operation` from `state`, or nil when not yet known.
    func next(from state: Int32, by operation: Int) -> Int32? {
        let key = Self.key(state, operation)
        let mask = keys.count - 1
        var slot = Self.slot(key, mask)
        while keys[slot] != Self.empty {
            if keys[slot] == key { return values[slot] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Records that `operation` from `state` gives `next`.
    mutating func record(from state: Int32, by operation: Int, next: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        place(Self.key(state, operation), next)
        count += 1
    }

    private mutating func place(_ key: UInt64, _ value: Int32) {
        let mask = keys.count - 1
        var slot = Self.slot(key, mask)
        while keys[slot] != Self.empty { slot = (slot + 1) & mask }
        keys[slot] = key
        values[slot] = value
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: Self.empty, count: oldKeys.count * 2)
        values = [Int32](repeating: 0, count: oldKeys.count * 2)
        for slot in oldKeys.indices where oldKeys[slot] != Self.empty { place(oldKeys[slot], oldValues[slot]) }
    }

    private static func key(_ state: Int32, _ operation: Int) -> UInt64 {
        UInt64(UInt32(bitPattern: state)) << 32 | UInt64(UInt32(truncatingIfNeeded: operation))
    }

    private static func slot(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: SplitMix64.mix(key)) & mask
    }
}
