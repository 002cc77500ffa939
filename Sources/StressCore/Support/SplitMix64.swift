/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, seedable generator.
///
/// Used for per-thread operation choice and operation arguments. It has 64 bits
/// of state, so a worker's stream is a pure function of its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose whole future is fixed by `seed`.
    ///
    /// - Parameter seed: The seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    ///
    /// - Returns: 64 random bits.
    @inline(__always)
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// A value in `0..<bound` (`bound` > 0), by multiply-shift (bias below 2^-32 for
    /// the bounds workloads use).
    ///
    /// - Parameter bound: The exclusive upper bound, above 0.
    /// - Returns: A value in `0..<bound`.
    @inline(__always)
    public mutating func next(below bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// The SplitMix64 finaliser: a good 64-bit mixing function on its own.
    @inline(__always)
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Derives a child seed from a parent seed and a label, so seeds form a tree
    /// (run → trial → thread) and no two children of one parent share a stream.
    package static func derive(_ parent: UInt64, _ label: UInt64) -> UInt64 {
        mix(parent ^ mix(label &+ 0x632B_E59B_D9B4_E019))
    }

    /// A stable 64-bit FNV-1a hash of a string, for deriving seeds from names.
    package static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }
}
