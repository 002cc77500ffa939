/// One object per resource (a lock, a queue), reached without touching its
/// reference count.
///
/// Loading a class reference out of an array to call it makes Swift retain it
/// for the call and release it after: two atomic read-modify-writes on the
/// object's header per operation, which an uncontended lock's own cost is of
/// the same order as, and which an application calling a lock it holds in a
/// stored property does not pay. A strategy that keeps its primitives here
/// pays neither: ``withObject(_:_:)`` lends the object (the table keeps it
/// alive) instead of copying the reference.
package struct ObjectTable<Object: AnyObject & Sendable>: Sendable {
    /// Owns the objects.
    private let objects: [Object]
    /// The same objects, unowned, so that reading one copies a pointer only.
    private let references: [UnmanagedObject]
    /// Object 0 again, in a stored property of its own, strong and not
    /// optional (for a table of no objects, a spare one no resource uses).
    ///
    /// Why: a loop that calls the object (a kernel batch: lock, body, unlock,
    /// over and over) loads it from the array afresh on every operation, the
    /// array's count for the bounds check, the element, then the object's
    /// class for the method, because the object's own methods are calls the
    /// compiler cannot see into and, for all it knows, change the array's
    /// memory. A `let` stored property of the strategy (a final class) is known
    /// not to change, so the compiler loads it once before the loop, as for an
    /// application's lock in a stored property (`stressbench-dev baseline
    /// nslock`), when the index is a constant 0 (the kernel batch makes it
    /// one). Resource 0 is the one most workloads guard (all of them with one
    /// resource).
    ///
    /// Strong and not optional, because only then does the compiler also load
    /// the object's class methods once before the loop (`nslock`: the two
    /// addresses of `lock()` and `unlock()`), as it does for an application's
    /// lock. Lent from an `Unmanaged` reference, or unwrapped from an optional
    /// with a check, the object's class was loaded again before each call:
    /// two loads an operation, and a loop of 28 bytes instead of the hand
    /// loop's 14, which lies across two 64-byte lines of code in one placement
    /// of four and ran 4% slower there (docs/overhead.md, "Code placement").
    /// A strong `let` costs no retain here: the strategy holds the table for
    /// the call.
    private let first: Object

    /// An `Unmanaged` reference to an object the table owns (and so keeps
    /// alive while the table exists).
    private struct UnmanagedObject: @unchecked Sendable {
        // @unchecked: `Unmanaged` is not `Sendable`, but the object is (see the
        // table's constraint), and the table owns it for the reference's life.
        let reference: Unmanaged<Object>
    }

    /// A table of `count` objects, in resource order, object `i` made by
    /// `make(i)`.
    ///
    /// A table of none still makes one object, a spare that stands at index 0
    /// (which no resource then names) so that ``withObject(_:_:)`` can reach
    /// index 0 without a check; it is not counted, nor in ``all``.
    /// - Parameters:
    ///   - count: How many objects (the trial's resources).
    ///   - make: Makes object `i`.
    public init(count: Int, make: (Int) -> Object) {
        objects = (0..<count).map(make)
        references = objects.map { UnmanagedObject(reference: .passUnretained($0)) }
        first = objects.first ?? make(0)
    }

    /// The number of objects.
    public var count: Int { objects.count }

    /// Every object, in resource order (for setup and tear-down, not for the hot path).
    public var all: [Object] { objects }

    /// Calls `body` with object `index`, lent for the call.
    @inline(__always)
    public func withObject<R>(_ index: Int, _ body: (Object) throws -> R) rethrows -> R {
        // Two calls of `body`, not one on a reference picked by the index:
        // the first then reaches the object straight from the property, a
        // value that stays the same through a loop (see ``first``).
        if index == 0 { return try body(first) }
        return try references[index].reference._withUnsafeGuaranteedRef(body)
    }
}
