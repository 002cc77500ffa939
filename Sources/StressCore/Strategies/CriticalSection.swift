/// A critical section handed to a strategy as a value that C can call, for
/// strategies built on C entry points that take a function and a context
/// (`dispatch_sync_f`, `dispatch_barrier_sync_f`).
///
/// Why it exists: a blocking strategy normally receives its critical section as
/// a non-escaping Swift closure, and the only way to put such a closure where C
/// can reach it, `withoutActuallyEscaping`, costs two heap allocations per call
/// (measured with a `malloc` counter) — the very cost the `-f` strategies are
/// there to avoid. A `CriticalSection` instead points at a record on the
/// caller's stack, reached through one fixed C function, so handing it to C
/// allocates nothing. The engine passes one to every strategy that adopts
/// ``SectionPassingStrategy``; others keep receiving closures.
public struct CriticalSection {
    /// Points at an `any SectionBody` on the caller's stack.
    private let record: UnsafeMutableRawPointer

    init(_ record: UnsafeMutablePointer<any SectionBody>) {
        self.record = UnsafeMutableRawPointer(record)
    }

    /// Runs the section here, on the calling thread.
    @inline(__always)
    public func run() { Self.function(record) }

    /// The context to hand to C alongside ``function``.
    public var context: UnsafeMutableRawPointer { record }

    /// The C function that runs a section given its ``context``.
    public static let function: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        context!.assumingMemoryBound(to: (any SectionBody).self).pointee.run()
    }
}

/// What a ``CriticalSection`` runs: implemented by the engine.
protocol SectionBody {
    func run()
}

/// A blocking strategy that takes its critical sections as ``CriticalSection``
/// values (to pass them to C) instead of closures. The closure-taking
/// `read`/`write` stay, for callers other than the engine.
public protocol SectionPassingStrategy: BlockingStrategy {
    /// Runs `section` with shared (reader) access to `resource`.
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - section: The critical section to run.
    func read(_ resource: Int, section: CriticalSection)
    /// Runs `section` with exclusive (writer) access to `resource`.
    ///
    /// - Parameters:
    ///   - resource: The resource.
    ///   - section: The critical section to run.
    func write(_ resource: Int, section: CriticalSection)
}
