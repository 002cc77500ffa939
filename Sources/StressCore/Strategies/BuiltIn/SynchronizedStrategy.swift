/// `synchronized`: Objective-C's `@synchronized(object)`, modelled faithfully
/// for Linux (where `objc_sync_enter` does not exist) by `ObjCSync`.
///
/// The lock Objective-C code (and Swift code calling `objc_sync_enter`) gets
/// with one keyword, with no lock object of its own: the runtime looks the
/// object's address up in a process-wide table of recursive mutexes on every
/// enter and every exit, helped by a per-thread cache of the objects the thread
/// holds. One object per resource stands for the `self` that library code
/// usually synchronizes on. Reentrant: a thread may enter an object it already
/// holds (the transaction-within-a-transaction pattern completes). No fairness
/// guarantee (a pthread recursive mutex underneath).
package final class SynchronizedStrategy: BlockingStrategy, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "synchronized",
        summary: "Objective-C @synchronized(obj): a global table of recursive mutexes keyed by object, per-thread cache",
        reentrant: true, sharedReads: false
    )

    /// What `@synchronized` names: any object; its address is the key.
    private final class Token: Sendable {}

    /// The tokens, kept alive for the trial so no other object takes an address.
    private let tokens: [Token]
    /// Their addresses, looked up on every enter and exit.
    private let objects: [UInt]

    public init(setup: StrategySetup) throws {
        tokens = (0..<setup.resources).map { _ in Token() }
        objects = tokens.map { UInt(bitPattern: ObjectIdentifier($0)) }
    }

    @inline(__always)
    public func read(_ resource: Int, _ body: () -> Void) { write(resource, body) }

    @inline(__always)
    public func write(_ resource: Int, _ body: () -> Void) {
        let object = objects[resource]
        ObjCSync.enter(object)
        defer { ObjCSync.exit(object) }
        return body()
    }
}

extension SynchronizedStrategy: HoldingStrategy {
    public func acquire(_ resource: Int) { ObjCSync.enter(objects[resource]) }
    public func release(_ resource: Int) { ObjCSync.exit(objects[resource]) }
}
