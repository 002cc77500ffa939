import CStressSupport

/// A libdispatch queue driven through its C function-pointer entry points
/// (`dispatch_sync_f`, `dispatch_barrier_sync_f`), for the `serial-queue-f` and
/// `rw-queue-f` strategies.
///
/// The point is what is *not* here: Swift's `DispatchQueue.sync` wraps the
/// closure in a block and copies it to the heap, three allocations per call
/// (counted with a `malloc` interposer). Here libdispatch gets a pointer to a
/// record on the caller's stack as its context and one plain C function that
/// runs it. One allocation per call is left, and it is Swift's, not
/// libdispatch's: C can only reach the closure through memory, a non-escaping
/// closure gets into memory only through `withoutActuallyEscaping`, and when
/// the closure arrives opaque (as it does through the strategy protocol) that
/// puts a small thunk on the heap. The `_baseline` command's tight loop, whose
/// C function needs no closure at all, shows the floor.
final class DispatchFunctionQueue: @unchecked Sendable {
    // @unchecked: it holds an opaque pointer to a libdispatch queue, which is
    // built to be used from any thread; the pointer never changes.
    private let queue: stress_dispatch_queue_t

    /// A new queue, serial unless `concurrent`.
    init(label: String, concurrent: Bool) {
        queue = stress_dispatch_queue_create(label, concurrent ? 1 : 0)
    }

    deinit { stress_dispatch_queue_release(queue) }

    /// `dispatch_sync_f`: runs `body` on the queue (as a reader, on a concurrent
    /// queue) and returns when it has run.
    @inline(__always)
    func sync(_ body: () -> Void) { call(body, stress_dispatch_sync_f) }

    /// `dispatch_barrier_sync_f`: runs `body` on the queue with nothing else of
    /// the queue running.
    @inline(__always)
    func barrierSync(_ body: () -> Void) { call(body, stress_dispatch_barrier_sync_f) }

    /// Runs `body` through `entry`. The context libdispatch hands back is a
    /// plain pointer to the closure value on this stack frame, so the one C
    /// function, ``trampoline``, retains nothing and is not generic. Handing a
    /// non-escaping closure to C needs `withoutActuallyEscaping`, which costs one
    /// small allocation per call (the overlay's `sync` costs three).
    @inline(__always)
    private func call(
        _ body: () -> Void,
        _ entry: (stress_dispatch_queue_t, UnsafeMutableRawPointer?, stress_dispatch_work_t) -> Void
    ) {
        withoutActuallyEscaping(body) { body in
            var body = body
            withUnsafeMutablePointer(to: &body) { entry(queue, UnsafeMutableRawPointer($0), Self.trampoline) }
        }
    }

    /// The C function libdispatch calls: the context is a `() -> Void`.
    private static let trampoline: stress_dispatch_work_t = { context in
        context!.assumingMemoryBound(to: (() -> Void).self).pointee()
    }
}
