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
    /// queue) and returns its result.
    @inline(__always)
    func sync<R>(_ body: () -> R) -> R { call(body, stress_dispatch_sync_f) }

    /// `dispatch_barrier_sync_f`: runs `body` on the queue with nothing else of
    /// the queue running, and returns its result.
    @inline(__always)
    func barrierSync<R>(_ body: () -> R) -> R { call(body, stress_dispatch_barrier_sync_f) }

    /// Runs `body` through `entry`. The C side gets a pointer to an existential
    /// on this stack frame whose concrete type, ``Invocation``, holds the
    /// closure and where to put its result (small enough for the existential's
    /// inline buffer, so it is not boxed); the C function libdispatch calls is
    /// the one non-generic ``trampoline``. (A closure capturing the result
    /// instead costs four allocations per call, more than the overlay.)
    @inline(__always)
    private func call<R>(
        _ body: () -> R,
        _ entry: (stress_dispatch_queue_t, UnsafeMutableRawPointer?, stress_dispatch_work_t) -> Void
    ) -> R {
        var result: R?
        withoutActuallyEscaping(body) { body in
            withUnsafeMutablePointer(to: &result) { slot in
                var invocation: any AnyInvocation = Invocation(body: body, result: slot)
                withUnsafeMutablePointer(to: &invocation) { entry(queue, $0, Self.trampoline) }
            }
        }
        return result!
    }

    /// The C function libdispatch calls: the context is a pointer to an `any AnyInvocation`.
    private static let trampoline: stress_dispatch_work_t = { context in
        context!.assumingMemoryBound(to: (any AnyInvocation).self).pointee.invoke()
    }
}

/// A call waiting to run on a queue, with its result type erased so that one
/// C function can run any of them.
private protocol AnyInvocation {
    /// Runs the call and stores its result.
    func invoke()
}

/// One `sync` call: the closure and the (stack) slot for its result.
private struct Invocation<R>: AnyInvocation {
    let body: () -> R
    let result: UnsafeMutablePointer<R?>

    func invoke() { result.pointee = body() }
}
