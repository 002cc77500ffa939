/// The operations a partial order has linearized so far, one bit each, in
/// 64-bit words: half of the search's memo key, so it must hash and compare
/// fast and copy only when the memo keeps it.
struct LinearizedSet: Hashable {
    private(set) var words: [UInt64]

    /// An empty set with room for `count` operations.
    init(count: Int) {
        words = [UInt64](repeating: 0, count: (count + 63) / 64)
    }

    /// Whether `operation` is in the set.
    func contains(_ operation: Int) -> Bool {
        words[operation >> 6] & (1 << UInt64(operation & 63)) != 0
    }

    /// Adds `operation`.
    mutating func insert(_ operation: Int) {
        words[operation >> 6] |= 1 << UInt64(operation & 63)
    }

    /// Removes `operation`.
    mutating func remove(_ operation: Int) {
        words[operation >> 6] &= ~(1 << UInt64(operation & 63))
    }
}
