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

    /// Runs `body` through `entry`. The context libdispatch hands back is a
    /// ``PendingCall`` on this stack frame: plain pointers to the closure and
    /// to the result slot, and the runner type that knows their types, so the
    /// one C function, ``trampoline``, retains nothing and is not generic.
    /// (A closure that captures the result slot instead costs three or four
    /// allocations per call, as many as the overlay; an existential holding
    /// the closure costs a copy, with its retain and release, per call.)
    @inline(__always)
    private func call<R>(
        _ body: () -> R,
        _ entry: (stress_dispatch_queue_t, UnsafeMutableRawPointer?, stress_dispatch_work_t) -> Void
    ) -> R {
        var result: R?
        withoutActuallyEscaping(body) { body in
            var body = body
            withUnsafeMutablePointer(to: &body) { body in
                withUnsafeMutablePointer(to: &result) { result in
                    var call = PendingCall(runner: Runner<R>.self, body: UnsafeMutableRawPointer(body),
                                           result: UnsafeMutableRawPointer(result))
                    withUnsafeMutablePointer(to: &call) { entry(queue, $0, Self.trampoline) }
                }
            }
        }
        return result!
    }

    /// The C function libdispatch calls: the context is a ``PendingCall``.
    private static let trampoline: stress_dispatch_work_t = { context in
        let call = context!.assumingMemoryBound(to: PendingCall.self).pointee
        call.runner.run(call.body, call.result)
    }
}

/// One `sync` call waiting to run, as plain pointers (nothing to retain when
/// the C side hands it back), with the code that knows their types.
private struct PendingCall {
    /// `Runner<R>`.
    let runner: any CallRunner.Type
    /// A `() -> R`.
    let body: UnsafeMutableRawPointer
    /// An `R?` to store the result in.
    let result: UnsafeMutableRawPointer
}

/// Runs a pending call whose result type it knows.
private protocol CallRunner {
    /// Calls the closure at `body` and stores what it returns at `result`.
    static func run(_ body: UnsafeMutableRawPointer, _ result: UnsafeMutableRawPointer)
}

/// The runner for result type `R`.
private enum Runner<R>: CallRunner {
    static func run(_ body: UnsafeMutableRawPointer, _ result: UnsafeMutableRawPointer) {
        result.assumingMemoryBound(to: R?.self).pointee = body.assumingMemoryBound(to: (() -> R).self).pointee()
    }
}
