import CStressSupport

/// A libdispatch queue driven through its C function-pointer entry points
/// (`dispatch_sync_f`, `dispatch_barrier_sync_f`), for the `serial-queue-f` and
/// `rw-queue-f` strategies.
///
/// The point is what is *not* here: Swift's `DispatchQueue.sync` wraps the
/// closure in a block and puts it on the heap, two allocations per call
/// (counted with a `malloc` interposer). Here libdispatch gets a
/// ``CriticalSection``: a pointer to a record on the caller's stack as its
/// context, and one plain C function that runs it. Nothing is allocated. (The
/// closure-taking entry points, kept for callers other than the engine, need
/// `withoutActuallyEscaping` to put the closure in memory, which costs the same
/// two allocations as the overlay.)
final class DispatchFunctionQueue: @unchecked Sendable {
    // @unchecked: it holds an opaque pointer to a libdispatch queue, which is
    // built to be used from any thread; the pointer never changes.
    private let queue: stress_dispatch_queue_t

    /// A new queue, serial unless `concurrent`.
    init(label: String, concurrent: Bool) {
        queue = stress_dispatch_queue_create(label, concurrent ? 1 : 0)
    }

    deinit { stress_dispatch_queue_release(queue) }

    /// `dispatch_sync_f`: runs `section` on the queue (as a reader, on a
    /// concurrent queue) and returns when it has run.
    @inline(__always)
    func sync(_ section: CriticalSection) {
        stress_dispatch_sync_f(queue, section.context, CriticalSection.function)
    }

    /// `dispatch_barrier_sync_f`: runs `section` on the queue with nothing else
    /// of the queue running.
    @inline(__always)
    func barrierSync(_ section: CriticalSection) {
        stress_dispatch_barrier_sync_f(queue, section.context, CriticalSection.function)
    }

    /// `dispatch_sync_f` for a closure.
    func sync(_ body: () -> Void) { call(body, stress_dispatch_sync_f) }

    /// `dispatch_barrier_sync_f` for a closure.
    func barrierSync(_ body: () -> Void) { call(body, stress_dispatch_barrier_sync_f) }

    /// Runs a closure through `entry`: the context is a pointer to the closure
    /// value on this stack frame, run by ``trampoline``.
    private func call(
        _ body: () -> Void,
        _ entry: (stress_dispatch_queue_t, UnsafeMutableRawPointer?, stress_dispatch_work_t) -> Void
    ) {
        withoutActuallyEscaping(body) { body in
            var body = body
            withUnsafeMutablePointer(to: &body) { entry(queue, UnsafeMutableRawPointer($0), Self.trampoline) }
        }
    }

    /// The C function libdispatch calls for a closure: the context is a `() -> Void`.
    private static let trampoline: stress_dispatch_work_t = { context in
        context!.assumingMemoryBound(to: (() -> Void).self).pointee()
    }
}
