/// A fixed number of `T`s in raw memory, each at the start of its own 128-byte
/// block, so that locks guarding different resources (or counters of different
/// threads) never share a cache line (128 covers adjacent-line prefetch on x86
/// and the 128-byte lines of Apple silicon).
///
/// The elements are bound but not initialised: the owner initialises them in
/// place (for C lock types) and frees the memory with ``deallocate()``. `T` may be
/// noncopyable (`Atomic`), which never moves once it is in place.
public struct CacheLineArray<T: ~Copyable>: @unchecked Sendable {
    // @unchecked: it is a pointer; the owner decides how the memory is shared,
    // which for locks is the whole point.
    /// The distance between two elements: at least 128 bytes (two cache lines,
    /// as adjacent-line prefetch pairs them), so no two elements share one.
    package static var stride: Int { Swift.max(128, (MemoryLayout<T>.size + 127) / 128 * 128) }

    /// The number of elements.
    public let count: Int
    private let base: UnsafeMutableRawPointer

    /// Allocates `count` zeroed elements.
    ///
    /// - Parameter count: The number of elements.
    public init(count: Int) {
        self.count = count
        let bytes = Swift.max(1, count) * Self.stride
        base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 128)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        for i in 0..<count { _ = (base + i * Self.stride).bindMemory(to: T.self, capacity: 1) }
    }

    /// The address of element `index` (unchecked, as any raw pointer
    /// arithmetic: callers pass indices below the count they allocated).
    ///
    /// - Parameter index: The element's position, below the count allocated.
    /// - Returns: The element's address.
    @inline(__always)
    public subscript(index: Int) -> UnsafeMutablePointer<T> {
        (base + index &* Self.stride).assumingMemoryBound(to: T.self)
    }

    /// Frees the memory (elements must already be deinitialised if they need it).
    public func deallocate() { base.deallocate() }
}
