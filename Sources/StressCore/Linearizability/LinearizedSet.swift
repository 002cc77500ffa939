/// The operations a partial order has linearized so far, one bit each, in
/// 64-bit words, with a hash kept up to date as operations come and go
/// (Zobrist: the exclusive or of a fixed random key per member), so the
/// memo can hash the set in constant time however many operations there are.
struct LinearizedSet {
    private(set) var words: [UInt64]
    /// The exclusive or of the members' keys.
    private(set) var hash: UInt64 = 0

    /// An empty set with room for `count` operations.
    init(count: Int) {
        words = [UInt64](repeating: 0, count: Swift.max(1, (count + 63) / 64))
    }

    /// Operation `operation`'s key: fixed, so hashes are the same every run.
    @inline(__always)
    static func key(_ operation: Int) -> UInt64 {
        SplitMix64.mix(UInt64(operation) &+ 0x9E37_79B9_7F4A_7C15)
    }

    /// Adds `operation` (not in the set).
    mutating func insert(_ operation: Int) {
        words[operation >> 6] |= 1 << UInt64(operation & 63)
        hash ^= Self.key(operation)
    }

    /// Removes `operation` (in the set).
    mutating func remove(_ operation: Int) {
        words[operation >> 6] &= ~(1 << UInt64(operation & 63))
        hash ^= Self.key(operation)
    }
}
