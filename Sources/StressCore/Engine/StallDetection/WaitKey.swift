/// The key space of the wait-for graph: a primitive's address (with
/// ``sharedBit`` for a reader), or a resource of the strategy under test, or
/// the main queue, both above every user-space address.
enum WaitKey {
    /// Set on a key held or wanted shared (a reader).
    static let sharedBit: UInt64 = 1
    private static let strategyBase: UInt64 = 0x8000_0000_0000_0000
    private static let signalBase: UInt64 = 0x9000_0000_0000_0000
    private static let kindMask: UInt64 = 0xF000_0000_0000_0000
    /// The main queue (and the main actor, which drains on it).
    static let mainQueue: UInt64 = 0xC000_0000_0000_0000

    /// The key of the strategy's resource `r`.
    static func strategyResource(_ r: Int) -> UInt64 { strategyBase | (UInt64(r) << 1) }

    /// The key of the signal a `waitUntil` step on resource `r` waits for.
    static func signal(_ r: Int) -> UInt64 { signalBase | (UInt64(r) << 1) }

    /// The key without its shared bit: the primitive itself.
    static func primitive(_ key: UInt64) -> UInt64 { key & ~sharedBit }

    /// The strategy resource a key names, if it names one.
    static func resource(of key: UInt64) -> Int? {
        let k = primitive(key)
        return k & kindMask == strategyBase ? Int((k & ~kindMask) >> 1) : nil
    }

    /// The resource whose signal a key names, if it names one.
    static func signalledResource(of key: UInt64) -> Int? {
        let k = primitive(key)
        return k & kindMask == signalBase ? Int((k & ~kindMask) >> 1) : nil
    }
}
