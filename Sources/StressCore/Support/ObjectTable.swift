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
    /// Object 0 again, in a stored property of its own (nil for an empty table).
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
    private let first: UnmanagedObject?

    /// An `Unmanaged` reference to an object the table owns (and so keeps
    /// alive while the table exists).
    private struct UnmanagedObject: @unchecked Sendable {
        // @unchecked: `Unmanaged` is not `Sendable`, but the object is (see the
        // table's constraint), and the table owns it for the reference's life.
        let reference: Unmanaged<Object>
    }

    /// A table of `objects`, in resource order.
    public init(_ objects: [Object]) {
        self.objects = objects
        references = objects.map { UnmanagedObject(reference: .passUnretained($0)) }
        first = references.first
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
        // value that stays the same through a loop. (Index 0 of an empty table
        // traps, as the array's bounds check would. Unwrapped unchecked, the
        // loop lost its last loads yet measured no faster: docs/overhead.md.)
        if index == 0 { return try first!.reference._withUnsafeGuaranteedRef(body) }
        return try references[index].reference._withUnsafeGuaranteedRef(body)
    }
}
