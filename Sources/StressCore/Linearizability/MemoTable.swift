/// Lowe's memo: the (linearized set, model state) pairs the search has
/// reached, in one open-addressing hash table whose sets live side by side
/// in one word array, and whose states are the numbers ``ModelStates`` gives
/// them. A lookup allocates nothing; an insertion only grows the arrays now
/// and then (amortized), where a `Set` of keys holding arrays would allocate
/// a key per insertion.
struct MemoTable {
    private let wordsPerSet: Int
    /// Entry i's set: `words[i * wordsPerSet ..< (i + 1) * wordsPerSet]`.
    private var words: [UInt64] = []
    private var states: [Int32] = []
    private var hashes: [UInt64] = []
    /// Entry index + 1 per slot (0: empty); a power of two long.
    private var slots: [Int32]

    /// The pairs reached.
    var count: Int { states.count }

    /// An empty memo for sets of `wordsPerSet` words.
    init(wordsPerSet: Int) {
        self.wordsPerSet = wordsPerSet
        slots = [Int32](repeating: 0, count: 64)
    }

    /// Adds (`set`, `state`) unless it is already there.
    ///
    /// - Returns: Whether it was new.
    mutating func insert(_ set: LinearizedSet, _ state: Int32) -> Bool {
        let hash = SplitMix64.mix(set.hash ^ (UInt64(UInt32(bitPattern: state)) &* 0x9E37_79B9_7F4A_7C15))
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let entry = Int(slots[slot]) - 1
            if hashes[entry] == hash && states[entry] == state && sameSet(entry, set) { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(states.count + 1)
        words.append(contentsOf: set.words)
        states.append(state)
        hashes.append(hash)
        // Keep the table at most half full, so probes stay short.
        if states.count * 2 > slots.count { grow() }
        return true
    }

    private func sameSet(_ entry: Int, _ set: LinearizedSet) -> Bool {
        let start = entry * wordsPerSet
        for word in 0..<wordsPerSet where words[start + word] != set.words[word] { return false }
        return true
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for entry in hashes.indices {
            var slot = Int(truncatingIfNeeded: hashes[entry]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entry + 1)
        }
    }
}
